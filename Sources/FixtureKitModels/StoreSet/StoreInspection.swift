import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto

/// Something worth saying about a store set, in plain words.
public struct Diagnostic: Codable, Equatable, Sendable {
    public enum Severity: String, Codable, Sendable, Comparable {
        /// Worth knowing, nothing wrong.
        case note
        /// Probably a mistake in how the set was copied; the store still opens.
        case warning
        /// Data is lost or the set is inconsistent: `verify` fails on it.
        case problem

        private var rank: Int {
            switch self {
            case .note: 0
            case .warning: 1
            case .problem: 2
            }
        }

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    public internal(set) var severity: Severity
    /// The file of the set it is about.
    public internal(set) var file: String
    /// The whole sentence, naming the file: `App.sqlite-wal: frame 7: checksum mismatch: ...`.
    public internal(set) var message: String

    /// The message without the file's name in front, when it starts with it.
    public var detail: String {
        message.hasPrefix(file + ": ") ? String(message.dropFirst(file.count + 2)) : message
    }
}

/// Everything fixturekit can tell about a store set from its files' bytes, and
/// optionally from a copy opened with SQLite.
public struct StoreInspection: Codable, Sendable {
    public internal(set) var store: String
    /// Each file of the set and its size.
    public internal(set) var files: [String: UInt64]
    /// The database header as SQLite sees it: from the WAL's last committed copy
    /// of page 1 when it has one, else from the main file.
    public internal(set) var header: DatabaseHeader
    /// The main file's own first 100 bytes.
    public internal(set) var mainFileHeader: DatabaseHeader
    public internal(set) var wal: WALFile?
    /// Committed WAL frames a checkpoint has not yet copied into the main file.
    public internal(set) var walFramesNotInMainFile: Int
    /// Committed transactions that live only in the WAL.
    public internal(set) var walTransactionsNotInMainFile: Int
    public internal(set) var shm: SharedMemoryHeader?
    public internal(set) var hotJournal: Bool
    public package(set) var contents: StoreContents?
    public internal(set) var diagnostics: [Diagnostic]

    /// Inspects the store set of `storePath`.
    /// - Parameter readContents: also copy the set and read its schema, row
    ///   counts and model identity through SQLite.
    /// - Throws: ``StoreError`` when the main file cannot be read or is not SQLite.
    public init(storePath: String, readContents: Bool = true) throws(StoreError) {
        let set = try StoreSet(storePath: storePath)
        try self.init(set: set, readContents: readContents)
    }

    /// How the contents are read through SQLite.
    package enum ContentsAccess {
        /// From a copy of the set in a temporary folder: the only way for a fixture.
        case copy
        /// From the file itself, opened `immutable=1`: for a single-file store the
        /// caller just built and owns (a capture's staging copy), never a fixture.
        case ownedFileImmutable
    }

    /// - Throws: ``StoreError`` when the main file or a sidecar cannot be read, or
    ///   the main file is not SQLite.
    public init(set: StoreSet, readContents: Bool = true) throws(StoreError) {
        try self.init(inspecting: set, readContents: readContents, access: .copy)
    }

    /// - Parameter hashContent: also compute the content hash (``Database/contentHash()``)
    ///   on the connection the contents are read through, into `contents.contentHash`
    ///   (``StoreContents/init(readingAndHashing:)``).
    /// - Throws: ``StoreError``, its operation `inspect`.
    package init(inspecting set: StoreSet, readContents: Bool, access: ContentsAccess, hashContent: Bool = false) throws(StoreError) {
        store = set.storePath
        var files = [set.storeName: set.storeSize]
        for (sidecar, size) in set.present { files[set.fileName(of: sidecar)] = size }
        self.files = files
        do throws(StoreError) {
            mainFileHeader = try set.readHeader()
        } catch {
            throw StoreError(store: error.store, problem: error.problem, operation: "inspect")
        }
        do throws(FileSystemError) {
            wal = set.has(.wal) ? try WALFile(path: set.path(of: .wal)) : nil
            header = mainFileHeader
            if let wal, wal.problem?.discardsLog != true, let page1 = wal.committedDatabaseHeader, let committed = try? DatabaseHeader(bytes: page1) {
                header = committed
            }
            shm = set.has(.shm) ? SharedMemoryHeader(bytes: try Self.prefix(of: set.path(of: .shm), count: FileFormat.shmHeaderSize)) : nil
            let journalStart = set.has(.journal) ? try Self.prefix(of: set.path(of: .journal), count: FileFormat.journalMagic.count) : []
            hotJournal = journalStart == FileFormat.journalMagic
        } catch {
            throw StoreError(store: set.storePath, problem: .sidecar(error), operation: "inspect")
        }
        walFramesNotInMainFile = 0
        walTransactionsNotInMainFile = 0
        diagnostics = []
        if let wal {
            // The -shm says how far checkpoints got, if it describes this log.
            var backfilled = 0
            if let shm, shm.isConsistent, let walHeader = wal.header, shm.salt1 == walHeader.salt1, shm.salt2 == walHeader.salt2 {
                backfilled = min(Int(shm.backfilledFrames), wal.committedFrames)
            }
            if wal.problem?.discardsLog != true {
                walFramesNotInMainFile = wal.committedFrames - backfilled
                walTransactionsNotInMainFile = wal.commits(after: backfilled)
            }
        }
        diagnostics = diagnose(set)
        if readContents {
            do throws(StoreError) {
                var scratch: ScratchStore?
                if access != .ownedFileImmutable || !set.present.isEmpty { scratch = try ScratchStore(copying: set, operation: "inspect") }
                let database: Database
                if let scratch { database = scratch.database } else { database = try ScratchStore.openImmutable(set.storePath) }
                contents = hashContent ? try StoreContents(readingAndHashing: database) : try StoreContents(reading: database)
            } catch {
                diagnostics.append(Diagnostic(severity: .problem, file: set.storeName, message: "SQLite cannot read the store set: \(error.why)"))
            }
        }
    }

    private static func prefix(of path: String, count: Int) throws(FileSystemError) -> [UInt8] {
        let reader = try SequentialReader(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.removeSubrange(try reader.read(into: &bytes)...)
        return bytes
    }

    /// Whether any diagnostic is a problem.
    public var hasProblems: Bool { diagnostics.contains { $0.severity == .problem } }

    // MARK: - Diagnostics

    private func diagnose(_ set: StoreSet) -> [Diagnostic] {
        var found: [Diagnostic] = []
        let store = set.storeName
        let walName = set.fileName(of: .wal)
        let shmName = set.fileName(of: .shm)
        var about = store
        func say(_ severity: Diagnostic.Severity, _ message: String) {
            found.append(Diagnostic(severity: severity, file: about, message: message))
        }

        if let wal {
            about = walName
            if let problem = wal.problem {
                switch problem {
                case .partialHeader, .badMagic, .badHeaderChecksum, .invalidPageSize:
                    let lost = wal.frameCount > 0 ? ": SQLite ignores the whole log and its \(Self.frames(wal.frameCount))" : ": SQLite ignores the whole log"
                    say(.problem, "\(walName): \(problem)\(lost)")
                case .unsupportedVersion:
                    say(.problem, "\(walName): \(problem): SQLite refuses to open the store")
                case .saltMismatch, .frameChecksumMismatch, .invalidPageNumber:
                    say(.problem, "\(walName): \(problem): SQLite silently drops it and the \(Self.frames(wal.framesAfterInvalid)) after it, \(Self.transactions(wal.commitsAfterInvalid)) in all")
                }
            } else if wal.fileSize == 0 {
                say(.note, "\(walName) is empty: nothing to replay (a stale sidecar)")
            }
            if walTransactionsNotInMainFile > 0 {
                say(.warning, "\(Self.transactions(walTransactionsNotInMainFile, capitalized: true)) (\(Self.frames(walFramesNotInMainFile))) live only in \(walName): copying \(store) alone loses them")
            }
            // A WAL store's page size cannot change: a log with another one belongs to another database.
            if let walHeader = wal.header, wal.problem?.discardsLog != true, walHeader.pageSize != mainFileHeader.pageSize {
                say(.problem, "\(walName): \(walHeader.pageSize)-byte pages, but \(store) has \(mainFileHeader.pageSize)-byte pages: the log does not belong to this database")
            }
            if wal.tornTailBytes > 0 {
                say(.note, "\(walName) ends with \(wal.tornTailBytes) bytes of a torn frame (an interrupted write; SQLite ignores it)")
            }
            if wal.tailFrames > 0 && wal.problem == nil {
                say(.note, "\(Self.frames(wal.tailFrames, capitalized: true)) after the last commit in \(walName) are not part of the log (an unfinished transaction, or an earlier log)")
            }
        } else if header.isWAL {
            about = store
            say(.note, "\(store) is in WAL mode and has no \(walName): complete if the app closed it cleanly; if it was copied from a running app, its -wal was left behind")
        }

        about = shmName
        if set.has(.shm) {
            if wal == nil {
                say(.warning, "\(shmName) without \(walName) is stale: SQLite rebuilds it on the next open")
            } else if let shm, let walHeader = wal?.header, shm.isConsistent, (shm.salt1, shm.salt2) != (walHeader.salt1, walHeader.salt2) {
                say(.warning, "\(shmName) describes another log than \(walName) (salts differ): it is stale, and SQLite rebuilds it on the next open")
            } else if shm == nil {
                say(.note, "\(shmName) is shorter than its header: SQLite rebuilds it on the next open")
            }
        }

        about = set.fileName(of: .journal)
        if hotJournal {
            say(.warning, "\(set.fileName(of: .journal)) holds an unfinished transaction: SQLite rolls it back on the next open; \(store) copied without it may be corrupt")
        } else if set.has(.journal) {
            say(.note, "\(set.fileName(of: .journal)) holds no transaction (a stale sidecar)")
        }
        return found
    }

    package static func frames(_ count: Int, capitalized: Bool = false) -> String {
        let text = "\(count) " + (count == 1 ? "frame" : "frames")
        return capitalized ? text.prefix(1).uppercased() + text.dropFirst() : text
    }

    package static func transactions(_ count: Int, capitalized: Bool = false) -> String {
        let text = "\(count) committed " + (count == 1 ? "transaction" : "transactions")
        return capitalized ? text.prefix(1).uppercased() + text.dropFirst() : text
    }
}
