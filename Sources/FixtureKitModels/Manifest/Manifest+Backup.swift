import FixtureKitSystem

/// What a backup of a live store records about where it came from, in its
/// `manifest.json` (`"backup"`): the store it is of, which is how old backups are
/// told apart when two stores of the same file name share a backup folder, and
/// the owner, group and mode of each file and folder of its store set, which a
/// restore puts back.
///
/// Unlike the rest of a manifest it names a path of the machine: a backup is of
/// one store on one machine, not a reproducible fixture.
public struct BackupOrigin: Codable, Equatable, Sendable {
    /// The store's main file as an absolute path, its folder's symbolic links
    /// resolved: `/srv/app/data/App.sqlite`.
    public package(set) var store: String
    /// Each file and folder of the backed-up set, by its path relative to the
    /// store's folder (`App.sqlite`, `App.sqlite-wal`, `.App_SUPPORT/A1`).
    public package(set) var files: [String: FileOwnership]

    package init(store: String, files: [String: FileOwnership]) {
        self.store = store
        self.files = files
    }
}

/// A file's owner, group and permission bits.
public struct FileOwnership: Codable, Equatable, Sendable {
    public package(set) var uid: UInt32
    public package(set) var gid: UInt32
    /// The permission bits in octal, as `chmod` takes them: `"0600"`.
    public package(set) var mode: String

    package init(uid: UInt32, gid: UInt32, mode: FileMode) {
        self.uid = uid
        self.gid = gid
        let digits = String(mode & 0o7777, radix: 8)
        self.mode = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// What `lstat` says of a file.
    package init(_ info: FileStatus) {
        self.init(uid: info.owner, gid: info.group, mode: info.mode)
    }

    /// The permission bits; `nil` when the text is not octal or holds more than them.
    package var permissions: FileMode? {
        guard let value = FileMode(mode, radix: 8), value & ~0o7777 == 0 else { return nil }
        return value
    }
}

extension BackupOrigin {
    /// The identity of the store at `storePath`: its folder resolved to an
    /// absolute path without symbolic links (`realpath`), and its file name.
    package static func identity(ofStore storePath: String) -> String {
        let name = storePath.split(separator: "/").last.map(String.init) ?? storePath
        let folder = AtomicFile.parentFolder(of: storePath)
        guard let resolved = POSIX.realPath(folder) else { return POSIX.absolutePath(storePath) }
        return resolved.appendingPath(name)
    }
}
