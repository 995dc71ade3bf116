import FixtureKitSystem

/// `manifest.json`: what a fixture holds and how it was made.
///
/// Written with sorted keys and nothing that differs between two captures of the
/// same bytes (no timestamps, no paths of the machine), so that a fixture is
/// reproducible. Its row counts are what migrations are checked against.
public struct Manifest: Codable, Equatable, Sendable {
    package static let fileName = "manifest.json"
    /// The version of this file's format.
    package static let currentFormat = 1

    public struct Capture: Codable, Equatable, Sendable {
        /// `snapshot`, `checkpoint` or `raw`.
        public package(set) var mode: String
        /// `fixturekit 0.1.0`.
        public package(set) var tool: String
    }

    public struct SQLiteFacts: Codable, Equatable, Sendable {
        public package(set) var pageSize: Int
        /// Pages in the main file, as its header says.
        public package(set) var pageCount: UInt32
        public package(set) var freelistPages: UInt32
        /// `wal` or `rollback`, as the header says.
        public package(set) var journalMode: String
        public package(set) var userVersion: Int32
        public package(set) var applicationID: Int32
        public package(set) var textEncoding: String
        /// The SQLite library that last wrote the main file: `3.40.1`.
        public package(set) var writtenBy: String
    }

    public struct WALFacts: Codable, Equatable, Sendable {
        /// Whole frames in the `-wal`.
        public package(set) var frames: Int
        /// Committed transactions SQLite replays from it.
        public package(set) var commits: Int
        /// Committed frames not yet copied into the main file.
        public package(set) var framesNotInMainFile: Int
    }

    public struct SchemaFacts: Codable, Equatable, Sendable {
        /// SHA-256 of the structural schema (see ``SchemaSnapshot``).
        public package(set) var hash: String
        public package(set) var objects: Int
        /// Rows that violate a foreign key, as captured (stores from the field have some).
        public package(set) var foreignKeyViolations: Int?
    }

    public package(set) var format: Int
    /// The shipped version's label: `1.0.0`.
    public package(set) var version: String
    /// The main file's name: `App.sqlite`.
    public package(set) var store: String
    /// The sidecars captured with it: `App.sqlite-wal`, `App.sqlite-shm`, `.App_SUPPORT`.
    public package(set) var sidecars: [String]
    public package(set) var capture: Capture
    public package(set) var sqlite: SQLiteFacts
    public package(set) var wal: WALFacts?
    public package(set) var schema: SchemaFacts
    /// The content hash of the store (`fixturekit hash`): its schema and rows,
    /// independent of page layout. Absent in manifests written before it existed.
    public package(set) var contentHash: String? = nil
    /// The Core Data or SwiftData model identity, when the store has `Z_METADATA`.
    public package(set) var model: CoreDataModel?
    /// The row count of every table: the expected record counts.
    public package(set) var tables: [String: Int]
    /// Whether and how the store was anonymized (see Manifest+Anonymization.swift); absent when not.
    public package(set) var anonymization: Anonymization? = nil
    /// Only in a backup of a live store: which store it is of, and its files'
    /// owners and modes (see Manifest+Backup.swift); absent in a fixture.
    public package(set) var backup: BackupOrigin? = nil

    /// The manifest of an inspected store set.
    /// - Throws: ``StoreError`` (``StoreError/Problem/contentsUnread(_:)``) when the
    ///   inspection could not read the contents.
    package init(version: String, mode: String, inspected inspection: StoreInspection) throws(StoreError) {
        guard let contents = inspection.contents else {
            let why = inspection.diagnostics.last?.message ?? "its contents could not be read"
            throw StoreError(store: inspection.store, problem: .contentsUnread(why), operation: "write manifest")
        }
        let header = inspection.header
        let storeName = String(inspection.store.split(separator: "/").last ?? "")
        format = Self.currentFormat
        self.version = version
        store = storeName
        sidecars = inspection.files.keys.filter { $0 != storeName }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        capture = Capture(mode: mode, tool: "fixturekit \(FixtureKitLibrary.version)")
        sqlite = SQLiteFacts(
            pageSize: header.pageSize, pageCount: header.pageCount, freelistPages: header.freelistPageCount,
            journalMode: header.journalMode, userVersion: header.userVersion, applicationID: header.applicationID,
            textEncoding: header.textEncodingName, writtenBy: header.sqliteVersion)
        wal = inspection.wal.map { wal in
            WALFacts(frames: wal.frameCount, commits: wal.commits, framesNotInMainFile: inspection.walFramesNotInMainFile)
        }
        schema = SchemaFacts(hash: contents.schemaHash, objects: contents.objectCount, foreignKeyViolations: contents.foreignKeyViolations)
        model = contents.model
        tables = contents.tables
        contentHash = contents.contentHash
    }

    /// The file's bytes: indented JSON with sorted keys and a final line feed.
    package func rendered() -> [UInt8] { CanonicalJSON.file(self) }
}
