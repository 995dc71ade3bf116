import Foundation
import FixtureKitSystem
import FixtureKitModels

/// `App.sqlite.fixturekit-upgrade`, beside the store: an upgrade or a restore is
/// in progress, and the backup that can bring the store set back.
///
/// Written atomically (`.tmp`, fsync, rename, fsync of the folder) before the
/// store is touched, and removed only once the outcome is settled, so a process
/// killed at any moment leaves it for the next `upgrade` or `restore --pending`.
struct UpgradeMarker: Codable, Equatable, Sendable {
    /// Appended to the store's file name.
    static let suffix = ".fixturekit-upgrade"
    static let currentFormat = 1

    /// How far the work had got.
    enum Phase: String, Codable, Sendable {
        /// The backup is verified; the stages may have changed the store.
        case migrating
        /// Every stage ran and every check passed: the migration stands.
        case migrated
        /// The store set is being replaced by the backup; it is not to be trusted
        /// until that is done.
        case restoring
    }

    var format: Int
    var phase: Phase
    /// The store's file name.
    var store: String
    /// The backup archive, as an absolute path.
    var backup: String
    /// The files of the backed-up store set, relative to the store's folder, and
    /// their SHA-256: what a restore must put back.
    var files: [String: String]
    /// The version the store was at, and the one it is taken to.
    var from: String?
    var to: String?
    /// The configuration, as an absolute path: what a later run checks against.
    var configuration: String?
    /// Every table's row count before the migration.
    var tables: [String: Int]?
    /// Rows that violated a foreign key before the migration.
    var foreignKeyViolations: Int?
    /// `false` when the upgrade was told not to compare values (`--no-data-diff`):
    /// a later run checking the migration does not either.
    var compareValues: Bool?

    static func path(forStore storePath: String) -> String { storePath + suffix }

    /// `App.sqlite.fixturekit-upgrade.restoring`: the marker of the restore,
    /// written ahead while the disk has room, so that a migration that filled the
    /// disk can still be turned into a restore (a rename needs no room).
    static func preparedPath(forStore storePath: String) -> String { path(forStore: storePath) + ".restoring" }

    /// The marker of `storePath`, or `nil` when there is none.
    /// - Throws: ``FixtureKitError`` when one is there but cannot be read.
    static func read(forStore storePath: String) throws(FixtureKitError) -> UpgradeMarker? {
        let path = path(forStore: storePath)
        let bytes: [UInt8]
        do {
            guard try POSIX.lstatIfPresent(path) != nil else { return nil }
            bytes = try POSIX.readFile(path, limit: 16 << 20)
        } catch {
            throw FixtureKitError(what: "read upgrade marker", failed: error)
        }
        do {
            let marker = try JSONDecoderFactory.decoder().decode(UpgradeMarker.self, from: Data(bytes))
            guard marker.format == currentFormat else {
                throw FixtureKitError(what: "read upgrade marker", path: path, why: "format \(marker.format) is not one this build knows", hint: "finish it with the fixturekit that wrote it")
            }
            return marker
        } catch let error as FixtureKitError {
            throw error
        } catch {
            throw FixtureKitError(what: "read upgrade marker", path: path, why: JSONDecoderFactory.describe(error))
        }
    }

    /// Writes the marker beside `storePath`, atomically.
    func write(forStore storePath: String) throws(FixtureKitError) {
        try wrap("write upgrade marker", storePath) { () throws(FileSystemError) in
            try AtomicFile.write(CanonicalJSON.file(self), to: Self.path(forStore: storePath))
        }
    }

    /// Writes this marker, in phase `restoring`, as the prepared marker of the
    /// store (``preparedPath(forStore:)``).
    func prepareRestore(forStore storePath: String) throws(FixtureKitError) {
        var restoring = self
        restoring.phase = .restoring
        try wrap("write upgrade marker", storePath) { () throws(FileSystemError) in
            try AtomicFile.write(CanonicalJSON.file(restoring), to: Self.preparedPath(forStore: storePath))
        }
    }

    /// Turns the marker into this one in phase `restoring`: by renaming the
    /// prepared marker into place when it is there (no room needed), else by
    /// writing it.
    mutating func switchToRestoring(forStore storePath: String) throws(FixtureKitError) {
        phase = .restoring
        let prepared = Self.preparedPath(forStore: storePath)
        if let bytes = try? POSIX.readFile(prepared, limit: 16 << 20), bytes == CanonicalJSON.file(self) {
            try wrap("write upgrade marker", storePath) { () throws(FileSystemError) in
                try POSIX.rename(prepared, Self.path(forStore: storePath))
                try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: storePath))
            }
            return
        }
        try write(forStore: storePath)
    }

    /// Removes the marker of `storePath` (and a `.tmp` a killed write left, and
    /// the prepared marker), and flushes the folder: the outcome is settled.
    static func remove(forStore storePath: String) throws(FixtureKitError) {
        let path = path(forStore: storePath)
        try wrap("remove upgrade marker", storePath) { () throws(FileSystemError) in
            try POSIX.unlinkIfPresent(AtomicFile.temporaryPath(for: path))
            try POSIX.unlinkIfPresent(AtomicFile.temporaryPath(for: preparedPath(forStore: storePath)))
            try POSIX.unlinkIfPresent(preparedPath(forStore: storePath))
            try POSIX.unlinkIfPresent(path)
            try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: path))
        }
    }
}
