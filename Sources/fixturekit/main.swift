#if canImport(Glibc)
import Glibc
#endif
import Foundation

// The tool writes to pipes that may close early (`| head`): a write then fails
// with EPIPE instead of killing the process.
signal(SIGPIPE, SIG_IGN)
// Past a file-size limit (`ulimit -f`) a write fails with EFBIG and is reported,
// instead of the process dying of SIGXFSZ.
signal(SIGXFSZ, SIG_IGN)
let console = Console(environment: ProcessInfo.processInfo.environment)
exit(Tool.main(Array(CommandLine.arguments.dropFirst()), console: console).rawValue)
