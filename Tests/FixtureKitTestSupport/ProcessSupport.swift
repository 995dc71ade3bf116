import Foundation
@testable import FixtureKit

/// A run of the `fixturekit` executable in a process of its own: what signals
/// and a second concurrent run need.
final class ToolProcess {
    let process = Process()
    private let output: String
    private let errors: String

    /// Starts `fixturekit ARGUMENTS`; its stdout and stderr go to files in `folder`.
    init(_ arguments: [String], folder: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let name = UUID().uuidString
        output = folder + "/.out-" + name
        errors = folder + "/.err-" + name
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.executableURL = URL(fileURLWithPath: toolExecutable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var pid: pid_t { process.processIdentifier }

    /// Waits for the end; the result's status is the exit status, or 128 plus
    /// the signal that ended it, as a shell reports it.
    func wait() -> RunResult {
        process.waitUntilExit()
        let status = process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        let result = RunResult(
            status: status,
            standardOutput: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data(), as: UTF8.self),
            standardError: String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errors))) ?? Data(), as: UTF8.self))
        try? FileManager.default.removeItem(atPath: output)
        try? FileManager.default.removeItem(atPath: errors)
        return result
    }
}

/// Whether a process is alive (a zombie, which has ended, is not).
func isAlive(_ pid: pid_t) -> Bool {
    guard pid > 0, kill(pid, 0) == 0 else { return false }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(after: close)...].split(separator: " ").first
    return state != "Z" && state != "X"
}

/// The pids a stage's processes wrote into `file`, one a line.
func recordedPids(_ file: String) -> [pid_t] {
    ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// How many times a repeated test of a class runs: `FIXTUREKIT_TORTURE_RUNS`
/// when set (`make torture`), else `normal`.
func tortureRuns(_ normal: Int) -> Int {
    ProcessInfo.processInfo.environment["FIXTUREKIT_TORTURE_RUNS"].flatMap { Int($0) }.map { max($0, 1) } ?? normal
}

/// How large a scale test's input is: `torture` under `make torture`
/// (`FIXTUREKIT_TORTURE_RUNS` set), else `normal`, which runs the same code
/// on fewer rows.
func tortureSize(_ normal: Int, torture: Int) -> Int {
    ProcessInfo.processInfo.environment["FIXTUREKIT_TORTURE_RUNS"] == nil ? normal : torture
}
