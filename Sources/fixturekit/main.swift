import Foundation
import FixtureKit

// The tool writes to pipes that may close early (`| head`) and to files under a
// size limit (`ulimit -f`): such a write fails and is reported, instead of the
// process dying of SIGPIPE or SIGXFSZ.
StandardStream.reportWriteSignals()
let console = Console(environment: ProcessInfo.processInfo.environment)
let status = Tool.main(Array(CommandLine.arguments.dropFirst()), console: console)
// `upgrade` and `migrate` stopped cleanly on SIGINT or SIGTERM: end as the signal would have.
if status.isInterruption { Interruption.reraise() }
// The reader closed the pipe (`| head -n1`): the work is done, and the tool ends
// as `sha256sum` does at its next write, by SIGPIPE.
if status == .brokenPipe { StandardStream.endByBrokenPipe() }
StandardStream.exit(status.rawValue)
