#if canImport(Glibc)
import Glibc
#endif
import Foundation

// The tool writes to pipes that may close early (`| head`): a write then fails
// with EPIPE instead of killing the process.
signal(SIGPIPE, SIG_IGN)
let console = Console(environment: ProcessInfo.processInfo.environment)
exit(Tool.main(Array(CommandLine.arguments.dropFirst()), console: console).rawValue)
