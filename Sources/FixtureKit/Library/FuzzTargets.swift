import FixtureKitSystem
import FixtureKitModels

/// The parsers of outside bytes, each behind one entry point, for the fuzzer
/// (`make fuzz`, Fuzz/FuzzMain.swift) and for the regression tests that replay
/// the inputs it kept (Fuzz/regressions/). Each must return, never crash or hang,
/// whatever the bytes.
package enum FuzzTargets {
    package static let names = ["wal", "sums", "config", "archive"]

    /// Feeds `bytes` to the target `name`; `false` for an unknown name.
    @discardableResult
    package static func run(_ name: String, _ bytes: [UInt8]) -> Bool {
        switch name {
        case "wal":
            // The WAL, database-header and -shm readers.
            let wal = WALFile(bytes: bytes)
            _ = wal.commits(after: wal.committedFrames / 2)
            _ = try? DatabaseHeader(bytes: bytes)
            _ = SharedMemoryHeader(bytes: bytes)
        case "sums":
            // SHA256SUMS and fixturekit.lock, two line formats of digests; what
            // either writes must read back the same.
            let sums = SHA256Sums(parsing: bytes)
            _ = SHA256Sums(parsing: sums.rendered())
            if let lock = try? CorpusLock(parsing: bytes, path: "fixturekit.lock") {
                precondition((try? CorpusLock(parsing: lock.rendered(), path: "fixturekit.lock")) == lock, "fixturekit.lock does not read back what it writes")
            }
        case "config":
            // fixturekit.json, the anonymization rules and manifest.json.
            _ = try? CorpusConfiguration.parse(bytes, path: "fixturekit.json")
            _ = try? AnonymizationRules.parse(bytes, path: "anonymize.json")
            _ = try? Manifest.decodeIfWrittenByFixtureKit(bytes)
        case "archive":
            // The archive reader works on files: the input goes to a temporary one.
            guard let folder = try? ScratchFolder() else { return true }
            let path = folder.path.appendingPath("input.tar.zst")
            guard (try? AtomicFile.write(bytes, to: path)) != nil else { return true }
            _ = try? FixtureArchive.verify(path)
            _ = try? FixtureArchive.list(path)
        default:
            return false
        }
        return true
    }
}
