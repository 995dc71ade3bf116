import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

// MARK: - Retention

extension StoreBackup {
    /// The archives in `folder` named as backups of a store named `store`, oldest
    /// first. Two stores of the same file name share these names: which store an
    /// archive is of, its manifest says (``recordedOrigin(of:)``).
    package static func backups(of store: String, in folder: String) -> [String] {
        let names = ((try? POSIX.listDirectory(folder)) ?? []).map { String(pathBytes: $0) }
        return names.compactMap { name in BackupName(name, store: store).map { ($0, name) } }
            .sorted { $0.0 < $1.0 }
            .map { folder.appendingPath($0.1) }
    }

    /// Removes the oldest backups of the store at `storePath` in `folder` (and
    /// their `.sha256`) beyond the last `keep`.
    ///
    /// Only backups whose manifest records this very store (``BackupOrigin``: its
    /// absolute path, its folder's links resolved) are counted and removed: a
    /// store of the same file name elsewhere that shares the folder keeps its
    /// own, and a backup that records no store (made by an earlier fixturekit)
    /// is left alone. Never removed either: the backup that the store's marker
    /// names, and any backup pinned (``BackupPin``) by a marker or a run still
    /// in progress.
    /// - Returns: the archives removed.
    static func prune(store storePath: String, in folder: String, keep: Int) throws(FixtureKitError) -> [String] {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        guard FixtureLocator.isFolder(folder) else { return [] }
        let lock = try BackupFolderLock(folder: folder, store: name)
        defer { lock.release() }
        let identity = BackupOrigin.identity(ofStore: storePath)
        let own = backups(of: name, in: folder).filter { recordedOrigin(of: $0)?.store == identity }
        let pending = (try? UpgradeMarker.read(forStore: storePath))??.backup
        var removed: [String] = []
        for archive in own.dropLast(max(keep, 1)) {
            if let pending, POSIX.sameFile(pending, archive) { continue }
            if BackupPin.isPinned(archive, pruning: identity) { continue }
            try wrap("remove old backup", archive) { () throws(FileSystemError) in
                try POSIX.unlinkIfPresent(archive + FixtureArchive.checksumSuffix)
                try POSIX.unlinkIfPresent(archive)
            }
            removed.append(archive)
        }
        if !removed.isEmpty {
            try wrap("remove old backup", folder) { () throws(FileSystemError) in try POSIX.fsyncDirectory(folder) }
        }
        return removed
    }

    /// What a backup's manifest records of its origin; `nil` when it records
    /// none or cannot be read. Only the archive's first entries are read
    /// (`SHA256SUMS`, then `manifest.json`), never the store.
    static func recordedOrigin(of archive: String) -> BackupOrigin? {
        guard let reader = try? ArchiveReader(path: archive) else { return nil }
        defer { try? reader.close() }
        for _ in 0..<2 {
            guard let entry = try? reader.nextEntry() else { return nil }
            guard entry.name == Array(Manifest.fileName.utf8) else {
                guard (try? reader.skipData()) != nil else { return nil }
                continue
            }
            guard entry.size <= manifestLimit else { return nil }
            var bytes = [UInt8](repeating: 0, count: Int(entry.size))
            var filled = 0
            while filled < bytes.count {
                let count = bytes.withUnsafeMutableBytes { buffer in
                    (try? reader.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))) ?? 0
                }
                guard count > 0 else { return nil }
                filled += count
            }
            return (try? JSONDecoder().decode(RecordedOrigin.self, from: Data(bytes)))?.backup
        }
        return nil
    }

    /// The largest manifest read for its origin.
    private static let manifestLimit: UInt64 = 16 << 20

    /// The one key of a manifest that retention reads.
    private struct RecordedOrigin: Decodable {
        var backup: BackupOrigin?
    }
}

/// A backup that a marker names, pinned in its folder so that no pruning of any
/// store removes it while the marker may need it: `.<archive>.pin-<hash>` beside
/// it, holding the absolute path of the store whose marker names it (the hash is
/// of that path, so one archive can be pinned for several stores).
///
/// Written before the marker, removed after it. A pin is live while that store's
/// marker names the archive, or while a run holds that store's ``StoreLock``;
/// otherwise it was left by a run killed between the two steps, and the next
/// pruning removes it.
enum BackupPin {
    static let infix = ".pin-"

    /// `.<archive's name>.pin-<16 hex digits>` beside the archive.
    static func path(archive: String, store storePath: String) -> String {
        let name = archive.split(separator: "/").last.map(String.init) ?? archive
        let digest = (try? SHA256.hash(Array(POSIX.absolutePath(storePath).utf8)).hex) ?? String(repeating: "0", count: 64)
        return AtomicFile.parentFolder(of: archive).appendingPath("." + name + infix + digest.prefix(16))
    }

    /// Pins `archive` for the store at `storePath`.
    static func write(archive: String, store storePath: String) throws(FileSystemError) {
        try AtomicFile.write(Array((POSIX.absolutePath(storePath) + "\n").utf8), to: path(archive: archive, store: storePath), mode: 0o600)
    }

    /// Removes the pin of `archive` for the store at `storePath`, if there is one.
    static func remove(archive: String, store storePath: String) {
        try? POSIX.unlinkIfPresent(path(archive: archive, store: storePath))
    }

    /// Whether a live pin holds `archive`; stale pins met on the way are removed.
    /// - Parameter pruning: the identity of the store being pruned: its run holds
    ///   its lock, which says nothing of a pin of that store.
    static func isPinned(_ archive: String, pruning: String) -> Bool {
        let name = archive.split(separator: "/").last.map(String.init) ?? archive
        let folder = AtomicFile.parentFolder(of: archive)
        let prefix = "." + name + infix
        var pinned = false
        for entry in ((try? POSIX.listDirectory(folder)) ?? []).map({ String(pathBytes: $0) }) where entry.hasPrefix(prefix) && !entry.hasSuffix(AtomicFile.temporaryPath(for: "")) {
            let pin = folder.appendingPath(entry)
            guard let bytes = try? POSIX.readFile(pin, limit: 1 << 16) else {
                pinned = true
                continue
            }
            let store = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .newlines)
            if let marker = (try? UpgradeMarker.read(forStore: store)) ?? nil, POSIX.sameFile(marker.backup, archive) {
                pinned = true
            } else if BackupOrigin.identity(ofStore: store) != pruning, StoreLock.isHeld(store: store) {
                pinned = true
            } else {
                try? POSIX.unlinkIfPresent(pin)
            }
        }
        return pinned
    }
}

/// A backup's file name, `App.sqlite.backup-20251130T110312.123456Z.tar.zst`
/// (`-2`, `-3` before the suffix when two are made in the same microsecond),
/// ordered by time.
struct BackupName: Comparable {
    /// `20251130T110312.123456Z`: UTC, sorts as it reads.
    let time: String
    let sequence: Int

    init?(_ name: String, store: String) {
        let prefix = store + StoreBackup.nameInfix
        let suffix = StoreBackup.format.suffix
        guard name.hasPrefix(prefix), name.hasSuffix(suffix), name.count > prefix.count + suffix.count else { return nil }
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        let parts = middle.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts[0].count == Self.timeLength, parts[0].hasSuffix("Z"), parts[0].allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "T" || $0 == "." || $0 == "Z") }) else { return nil }
        time = String(parts[0])
        if parts.count == 2 {
            guard let number = Int(parts[1]), number > 1 else { return nil }
            sequence = number
        } else {
            sequence = 1
        }
    }

    /// `yyyymmddThhmmss.uuuuuuZ`.
    static let timeLength = 23

    static func < (lhs: BackupName, rhs: BackupName) -> Bool {
        lhs.time != rhs.time ? lhs.time < rhs.time : lhs.sequence < rhs.sequence
    }

    /// The name of a backup taken now, with `sequence` when it is above 1.
    static func make(store: String, sequence: Int) -> String {
        let now = UTCTime.now
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let time = pad(now.year, 4) + pad(now.month, 2) + pad(now.day, 2) + "T"
            + pad(now.hour, 2) + pad(now.minute, 2) + pad(now.second, 2) + "." + pad(now.microsecond, 6) + "Z"
        return store + StoreBackup.nameInfix + time + (sequence > 1 ? "-\(sequence)" : "") + StoreBackup.format.suffix
    }
}

