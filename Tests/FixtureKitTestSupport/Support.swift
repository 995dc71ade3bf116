import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTool

/// A fresh folder for one test, removed when the value goes away.
final class TemporaryFolder {
    let path: String

    /// - Parameter parent: where to make it; the temporary folder (`TMPDIR`) when nil.
    init(in parent: String? = nil) throws {
        let parent = parent ?? NSTemporaryDirectory()
        var template = Array((parent.appendingPathComponentForTest("fixturekit-test-XXXXXX")).utf8CString)
        guard let created = mkdtemp(&template) else { throw FileSystemError("mkdtemp", path: parent, errno: errno) }
        path = String(cString: created)
    }

    deinit {
        // Tests make files unreadable on purpose: give access back before removing.
        _ = try? run(["chmod", "-R", "u+rwX", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/name`.
    func url(_ name: String) -> String { path + "/" + name }

    /// Writes `contents` to `name`, creating folders on the way.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        try write(name, Array(contents.utf8))
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let target = url(name)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: target, contents: Data(bytes)) else {
            throw FileSystemError("create", path: target, errno: errno)
        }
        return target
    }

    func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: url(name))))
    }
}

extension String {
    func appendingPathComponentForTest(_ name: String) -> String { hasSuffix("/") ? self + name : self + "/" + name }
}

/// What a process or an in-process run of the tool gave back.
struct RunResult {
    var status: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs a program (found on PATH) and waits for it.
@discardableResult
func run(_ arguments: [String], in folder: String? = nil, environment: [String: String]? = nil) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    if let environment { process.environment = environment }
    // Files rather than pipes: a child that fills a pipe nobody reads would block.
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-out-\(UUID().uuidString)")
    let errorURL = FileManager.default.temporaryDirectory.appendingPathComponent("fixturekit-err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    defer {
        try? FileManager.default.removeItem(at: outputURL)
        try? FileManager.default.removeItem(at: errorURL)
    }
    process.standardOutput = try FileHandle(forWritingTo: outputURL)
    process.standardError = try FileHandle(forWritingTo: errorURL)
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return RunResult(
        status: process.terminationStatus,
        standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
        standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
}

/// Runs the tool in this process, as `fixturekit ARGUMENTS`, capturing its output.
func fixturekit(_ arguments: String..., environment: [String: String] = [:]) -> RunResult {
    fixturekit(arguments, environment: environment)
}

func fixturekit(_ arguments: [String], environment: [String: String] = [:]) -> RunResult {
    let console = Console(capturing: true, environment: environment)
    let status = Tool.main(arguments, console: console)
    return RunResult(status: status.rawValue, standardOutput: console.standardOutput, standardError: console.standardError)
}

/// The built `fixturekit` executable, beside this test bundle.
var toolExecutable: String {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidate = bundle
    // `swift test` runs `<build>/debug/fixturekitPackageTests.xctest`; the tool is beside it.
    while candidate.path != "/" {
        let tool = candidate.appendingPathComponent("fixturekit").path
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: tool, isDirectory: &isFolder), !isFolder.boolValue,
            FileManager.default.isExecutableFile(atPath: tool) { return tool }
        candidate.deleteLastPathComponent()
    }
    return "fixturekit"
}

extension CaptureAnonymization {
    /// A test store of synthetic data: captured as it is (`--no-anonymize`).
    static var synthetic: CaptureAnonymization { CaptureAnonymization(optOut: true) }
}

/// The repository's root folder, found from this file's path (Tests/FixtureKitTestSupport/).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
