import FixtureKitSystem
import FixtureKitCrypto

/// A store and the sidecars that must travel with it: `-wal`, `-shm`, a
/// `-journal`, and Core Data's external-storage folder `.<name>_SUPPORT/`.
public struct StoreSet: Sendable, Equatable {
    /// The kinds of sidecar, in the order they are listed.
    public enum Sidecar: String, Sendable, CaseIterable, Codable {
        case wal = "-wal"
        case shm = "-shm"
        case journal = "-journal"
        /// Core Data's `.App_SUPPORT/` folder of external binary data.
        case support = "_SUPPORT"
    }

    /// The main file, as given.
    public package(set) var storePath: String
    /// The folder that holds it.
    public package(set) var folder: String
    /// The main file's name: `App.sqlite`.
    public package(set) var storeName: String
    /// Size of each file present, by sidecar; the support folder's size is the sum of its files.
    public package(set) var present: [Sidecar: UInt64]
    public package(set) var storeSize: UInt64

    /// Finds the store set of `storePath`.
    /// - Throws: ``StoreError`` when the main file is missing, not a regular file
    ///   (its ``FileKind``), or cannot be looked at.
    public init(storePath: String) throws(StoreError) {
        self.storePath = storePath
        self.folder = AtomicFile.parentFolder(of: storePath)
        self.storeName = String(storePath.split(separator: "/", omittingEmptySubsequences: true).last ?? Substring(storePath))
        let info: FileStatus?
        do { info = try POSIX.lstatIfPresent(storePath) } catch {
            throw StoreError(store: storePath, problem: .unreadable(error))
        }
        guard let info else { throw StoreError(store: storePath, problem: .missing) }
        let kind = FileKind(mode: info.mode)
        guard kind == .regular else { throw StoreError(store: storePath, problem: .notRegularFile(kind)) }
        storeSize = UInt64(info.size)
        present = [:]
        for sidecar in Sidecar.allCases {
            let path = self.path(of: sidecar)
            guard let sidecarInfo = try? POSIX.lstatIfPresent(path) else { continue }
            switch (sidecar, sidecarInfo.kind) {
            case (.support, .folder):
                let items = (try? FolderListing.items(below: path)) ?? []
                present[sidecar] = items.reduce(0) { total, item in
                    if case .file(let size) = item.kind { return total + size }
                    return total
                }
            case (.support, _):
                continue
            case (_, .regular):
                present[sidecar] = UInt64(sidecarInfo.size)
            default:
                continue
            }
        }
    }

    /// The path of a sidecar, whether or not it exists.
    public func path(of sidecar: Sidecar) -> String {
        folder.appendingPath(fileName(of: sidecar))
    }

    /// `App.sqlite-wal`, or `.App_SUPPORT` for Core Data's folder.
    package func fileName(of sidecar: Sidecar) -> String {
        Self.fileName(of: sidecar, storeName: storeName)
    }

    /// The name of a sidecar of the store named `storeName`.
    package static func fileName(of sidecar: Sidecar, storeName: String) -> String {
        switch sidecar {
        case .support:
            // Core Data names the folder after the store without its extension.
            let base = storeName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
            return "." + (base.isEmpty ? storeName : base) + "_SUPPORT"
        default:
            return storeName + sidecar.rawValue
        }
    }

    public func has(_ sidecar: Sidecar) -> Bool { present[sidecar] != nil }

    /// The main file's database header.
    /// - Throws: ``StoreError`` when it cannot be read or is not SQLite's.
    public func readHeader() throws(StoreError) -> DatabaseHeader {
        var bytes = [UInt8](repeating: 0, count: FileFormat.databaseHeaderSize)
        do {
            let reader = try SequentialReader(path: storePath)
            bytes.removeSubrange(try reader.read(into: &bytes)...)
        } catch {
            throw StoreError(store: storePath, problem: .unreadable(error))
        }
        do { return try DatabaseHeader(bytes: bytes) } catch {
            throw StoreError(store: storePath, problem: .header(error))
        }
    }

    /// Copies the main file and every sidecar present into `folder`, under the same names.
    package func copyMembers(to folder: String, sync: Bool) throws(FileSystemError) {
        for name in memberNames {
            let source = self.folder.appendingPath(name)
            if name == fileName(of: .support) {
                try FileCopy.copyFolder(from: source, to: folder.appendingPath(name))
            } else {
                try FileCopy.copy(from: source, to: folder.appendingPath(name), sync: sync)
            }
        }
    }

    /// The names of the files and folders of the set that are present, main file first.
    package var memberNames: [String] {
        [storeName] + Sidecar.allCases.filter(has).map(fileName(of:))
    }
}
