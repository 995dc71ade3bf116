#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FixtureKit

// The tool writes to pipes that may close early (`| head`): a write then fails
// with EPIPE instead of killing the process.
signal(SIGPIPE, SIG_IGN)
// Past a file-size limit (`ulimit -f`) a write fails with EFBIG and is reported,
// instead of the process dying of SIGXFSZ.
signal(SIGXFSZ, SIG_IGN)
let console = Console(environment: ProcessInfo.processInfo.environment)
let status = Tool.main(Array(CommandLine.arguments.dropFirst()), console: console)
// `upgrade` and `migrate` stopped cleanly on SIGINT or SIGTERM: end as the signal would have.
if status.isInterruption { Interruption.reraise() }
// The reader closed the pipe (`| head -n1`): the work is done, and the tool ends
// as `sha256sum` does at its next write, by SIGPIPE.
if status == .brokenPipe {
    signal(SIGPIPE, SIG_DFL)
    raise(SIGPIPE)
}
exit(status.rawValue)
