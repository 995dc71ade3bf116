import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitSystem
@testable import FixtureKitTestSupport

/// One verdict per fixture, whether it is a folder or an archive: every
/// fixture the verify suite builds (each way a folder's checksums or its store
/// set can be wrong) is verified as a folder and, packed as `pack` lays an
/// archive out, as an archive, with and without `--deep`, and that archive
/// streamed on a pipe (`verify -`): the same exit status, and the same problems
/// in the same order.
///
/// Left out are what an archive cannot hold: a symbolic link, a FIFO, a file
/// nobody may read, a fixture without SHA256SUMS (an archive's first entry must
/// be it): an archive holding such a thing is refused as unsafe or malformed.
@Suite struct OneVerdictTests {
    /// One fixture to verify: how to damage a good one.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// `raw` (a WAL fixture with its sidecars) or `snapshot` (one file).
        var mode: CaptureMode = .raw
        /// Damages the fixture folder; `resum` rewrites SHA256SUMS after, so that
        /// only the checks beyond the checksums see the damage.
        var damage: @Sendable (String) throws -> Void
        var resum = false
        var testDescription: String { name }
    }

    static func edit(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func editText(_ path: String, _ change: (String) -> String) throws {
        try change(try String(contentsOfFile: path, encoding: .utf8)).write(toFile: path, atomically: false, encoding: .utf8)
    }

    static let cases: [Case] = [
        Case(name: "good, raw", damage: { _ in }),
        Case(name: "good, snapshot", mode: .snapshot, damage: { _ in }),
        Case(name: "a changed byte", damage: { try edit($0 + "/App.sqlite") { $0[$0.count - 1] ^= 1 } }),
        Case(name: "a missing -wal", damage: { try FileManager.default.removeItem(atPath: $0 + "/App.sqlite-wal") }),
        Case(name: "an unlisted file", damage: { try Data("x".utf8).write(to: URL(fileURLWithPath: $0 + "/notes.txt")) }),
        Case(name: "a reader's empty -wal", mode: .snapshot, damage: { try Data().write(to: URL(fileURLWithPath: $0 + "/App.sqlite-wal")) }),
        Case(name: "a reader's -shm", mode: .snapshot, damage: { try Data(count: 32768).write(to: URL(fileURLWithPath: $0 + "/App.sqlite-shm")) }),
        Case(name: "a malformed line", damage: { try editText($0 + "/SHA256SUMS") { $0 + "not a checksum line\n" } }),
        Case(name: "SHA256SUMS that lists itself", damage: { try editText($0 + "/SHA256SUMS") { $0 + String(repeating: "0", count: 64) + "  SHA256SUMS\n" } }),
        Case(name: "SHA256SUMS written by find", damage: { folder in
            try editText(folder + "/SHA256SUMS") { $0.replacingOccurrences(of: "  ", with: "  ./") }
        }),
        Case(name: "a listed file that is a folder", damage: { folder in
            try FileManager.default.removeItem(atPath: folder + "/manifest.json")
            try FileManager.default.createDirectory(atPath: folder + "/manifest.json", withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/manifest.json/inside"))
        }),
        Case(name: "a nested file, changed", damage: { folder in
            try FileManager.default.createDirectory(atPath: folder + "/.App_SUPPORT/_EXTERNAL_DATA", withIntermediateDirectories: true)
            try Data([1, 2, 3]).write(to: URL(fileURLWithPath: folder + "/.App_SUPPORT/_EXTERNAL_DATA/blob"))
        }),
        Case(name: "an empty folder", damage: { try FileManager.default.createDirectory(atPath: $0 + "/empty", withIntermediateDirectories: true) }, resum: true),
        Case(name: "a name with a line feed", damage: { try Data("1".utf8).write(to: URL(fileURLWithPath: $0 + "/two\nlines")) }),
        Case(name: "sidecars the manifest did not capture", mode: .snapshot, damage: { folder in
            let other = folder + "/../../other"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            let store = try HeldWALStore(in: other, notes: 3)
            for suffix in ["-wal", "-shm"] { try FileManager.default.copyItem(atPath: store.path + suffix, toPath: folder + "/App.sqlite" + suffix) }
        }, resum: true),
        Case(name: "sidecars the manifest captured, gone", damage: { folder in
            for suffix in ["-wal", "-shm"] { try FileManager.default.removeItem(atPath: folder + "/App.sqlite" + suffix) }
        }, resum: true),
        Case(name: "a manifest that is not JSON", damage: { try editText($0 + "/manifest.json") { "{" + $0 } }, resum: true),
        Case(name: "another page size in the manifest", damage: { try editText($0 + "/manifest.json") { $0.replacingOccurrences(of: "\"pageSize\" : 4096", with: "\"pageSize\" : 1024") } }, resum: true),
        Case(name: "other row counts in the manifest", damage: { try editText($0 + "/manifest.json") { $0.replacingOccurrences(of: "\"notes\" : 50", with: "\"notes\" : 51") } }, resum: true),
        Case(name: "a damaged page", mode: .snapshot, damage: { try edit($0 + "/App.sqlite") { bytes in for index in 4096 + 8..<4096 + 40 { bytes[index] = 0xFF } } }, resum: true),
    ] + WALTests.cases.map { damage in
        Case(name: "WAL: \(damage.name)", damage: { folder in try edit(folder + "/App.sqlite-wal") { $0 = damage.damage($0) } }, resum: true)
    }

    /// A fixture of 50 notes, captured as `mode` says, then damaged.
    static func makeFixture(_ testCase: Case, in folder: TemporaryFolder) throws -> String {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try HeldWALStore(in: folder.url("live"), notes: 50)
        let capture = fixturekit("capture", "--no-anonymize", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", testCase.mode.rawValue)
        #expect(capture.status == 0, "\(capture.standardError)")
        let fixture = folder.url("corpus/1.0.0")
        try testCase.damage(fixture)
        if testCase.resum { #expect(fixturekit("sums", "--quiet", fixture).status == 0) }
        withExtendedLifetime(store) {}
        return fixture
    }

    /// The folder as `pack` lays an archive out, whatever it holds: SHA256SUMS,
    /// manifest.json, then every other file and folder bytewise.
    static func archive(_ fixture: String, to path: String) throws {
        var files: [(String, [UInt8])] = []
        var folders: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: fixture)
        while let name = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: fixture + "/" + name, isDirectory: &isFolder)
            if isFolder.boolValue { folders.append(name) } else { files.append((name, Array(try Data(contentsOf: URL(fileURLWithPath: fixture + "/" + name))))) }
        }
        let rank = { (name: String) in name == "SHA256SUMS" ? 0 : name == "manifest.json" ? 1 : 2 }
        var entries: [(String, TestEntry)] = files.map { ($0.0, .file($0.0, $0.1)) } + folders.map { ($0, .folder($0)) }
        entries.sort { rank($0.0) != rank($1.0) ? rank($0.0) < rank($1.0) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        try buildArchive(path, entries.map(\.1), format: .tarZstd)
    }

    /// The one fixture's report of `verify --json`: everything but where it was.
    /// - Parameter piped: the archive at `path` streamed on standard input (`verify - < path`).
    static func verdict(_ path: String, deep: Bool, piped: Bool = false) throws -> (status: Int32, report: NSDictionary) {
        let arguments = ["verify", "--json"] + (deep ? ["--deep"] : [])
        let result = piped
            ? try run(["sh", "-c", "cat \"$0\" | exec \"$@\" -", path, toolExecutable] + arguments)
            : fixturekit(arguments + [path])
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let fixtures = object?["fixtures"] as? [[String: Any]]
        #expect(fixtures?.count == 1, "\(path): \(result.standardError)")
        var report = fixtures?.first ?? [:]
        report["path"] = nil
        report["kind"] = nil
        return (result.status, report as NSDictionary)
    }

    @Test(arguments: cases)
    func aFixtureHasOneVerdictAsAFolderAndAsAnArchive(testCase: Case) throws {
        let folder = try TemporaryFolder()
        let fixture = try Self.makeFixture(testCase, in: folder)
        let archive = folder.url("fixture.tar.zst")
        try Self.archive(fixture, to: archive)
        for deep in [false, true] {
            let asFolder = try Self.verdict(fixture, deep: deep)
            let asArchive = try Self.verdict(archive, deep: deep)
            #expect(asFolder.status == asArchive.status, "\(testCase.name), deep \(deep)")
            #expect(asFolder.report == asArchive.report, "\(testCase.name), deep \(deep):\nfolder \(asFolder.report)\narchive \(asArchive.report)")
            // The same archive streamed on a pipe: `cat A | fixturekit verify -`.
            let piped = try Self.verdict(archive, deep: deep, piped: true)
            #expect(piped.status == asArchive.status && piped.report == asArchive.report, "\(testCase.name), deep \(deep), piped:\n\(piped.report)\narchive:\n\(asArchive.report)")
        }
        let good = testCase.name.hasPrefix("good") || ["an empty folder", "SHA256SUMS written by find"].contains(testCase.name)
        #expect((try Self.verdict(fixture, deep: true).status == 0) == good, "\(testCase.name)")
    }
}
