import Foundation
import FixtureKitSystem
import FixtureKitModels

extension StoreRestore {
    /// What the manifest of an extracted archive records of its origin, if it
    /// is a backup that records one.
    static func recordedOrigin(in folder: String) -> BackupOrigin? {
        guard let bytes = try? POSIX.readFile(folder.appendingPath(Manifest.fileName), limit: 16 << 20) else { return nil }
        return (try? JSONDecoder().decode(Origin.self, from: Data(bytes)))?.backup
    }

    private struct Origin: Decodable {
        var backup: BackupOrigin?
    }

    /// Gives each extracted file and folder of the store set, before it goes in
    /// place, the owner, group and mode it is to have: those the backup recorded
    /// (``BackupOrigin``), else those of the file it replaces (the main file's
    /// for a `-wal` or `_SUPPORT` that was not there), else it keeps what
    /// extraction gave it. The owner and group are changed only where the system
    /// permits it (root, or a group of one's own); the mode always.
    /// - Returns: what could not be done, one line each.
    static func applyOwnership(_ storePath: String, extracted: Extracted) -> [String] {
        let storeName = storePath.split(separator: "/").last.map(String.init) ?? storePath
        let folder = AtomicFile.parentFolder(of: storePath)
        var paths = Set(extracted.digests.keys)
        for file in extracted.digests.keys {
            var parts = file.split(separator: "/").dropLast()
            while !parts.isEmpty {
                paths.insert(parts.joined(separator: "/"))
                parts.removeLast()
            }
        }
        let replacedMain = (try? POSIX.lstatIfPresent(storePath)).flatMap { $0 }
        var warnings: [String] = []
        // Deepest first: a folder's files before the folder.
        for path in paths.sorted(by: { $0.count > $1.count }) {
            let target = targetName(path, from: extracted.sourceStore, to: storeName)
            let wanted: FileOwnership
            if let recorded = extracted.origin?.files[path] {
                wanted = recorded
            } else if let replaced = (try? POSIX.lstatIfPresent(folder.appendingPath(target))).flatMap({ $0 }) {
                wanted = FileOwnership(replaced)
            } else if let replacedMain {
                wanted = FileOwnership(replacedMain)
            } else {
                continue
            }
            let extractedPath = extracted.folder.appendingPath(path)
            guard let current = (try? POSIX.lstatIfPresent(extractedPath)).flatMap({ $0 }) else { continue }
            let isFolder = current.kind == .folder
            if current.owner != wanted.uid || current.group != wanted.gid {
                do throws(FileSystemError) { try POSIX.setOwner(extractedPath, user: wanted.uid, group: wanted.gid) } catch {
                    warnings.append("owner \(wanted.uid):\(wanted.gid) of \(target) not restored: \(error.reason) (it is \(current.owner):\(current.group))")
                }
            }
            guard var mode = wanted.permissions else { continue }
            // A folder its owner cannot enter cannot be restored into; a file its
            // owner cannot read cannot be verified.
            mode |= isFolder ? 0o700 : 0o400
            do throws(FileSystemError) { try POSIX.setPermissions(extractedPath, mode) } catch {
                warnings.append("mode \(wanted.mode) of \(target) not restored: \(error.reason)")
            }
        }
        return warnings.sorted()
    }
}
