#if canImport(Glibc)
import Glibc
#endif

/// One thing found below a folder.
package struct FolderItem: Sendable {
    package enum Kind: Sendable, Equatable {
        case file(size: UInt64)
        /// A symbolic link, FIFO, socket or device: never part of a fixture.
        case other(description: String)
    }

    package var path: RelativePath
    package var kind: Kind

    package init(path: RelativePath, kind: Kind) {
        self.path = path
        self.kind = kind
    }
}

/// Lists every file below a folder, recursively, without following links.
package enum FolderListing {
    /// Every regular file and every non-folder oddity below `root`, sorted bytewise.
    ///
    /// - Throws: ``FileSystemError`` when a folder cannot be read; a name that is
    ///   not UTF-8 is reported as such (fixtures are exchanged between systems).
    package static func items(below root: String) throws(FileSystemError) -> [FolderItem] {
        var items: [FolderItem] = []
        var pending: [RelativePath] = [RelativePath(bytes: [])]
        while let folder = pending.popLast() {
            let folderPath = folder.bytes.isEmpty ? root : root.appendingPath(folder.description)
            for name in try POSIX.listDirectory(folderPath) {
                let path = folder.appending(name)
                guard String(validating: name, as: UTF8.self) != nil else {
                    throw FileSystemError("list", path: root.appendingPath(path.description), message: "file name is not valid UTF-8")
                }
                let info = try POSIX.lstat(root.appendingPath(path.description))
                switch info.mode & S_IFMT {
                case S_IFDIR: pending.append(path)
                case S_IFREG: items.append(FolderItem(path: path, kind: .file(size: UInt64(info.size))))
                default: items.append(FolderItem(path: path, kind: .other(description: FileKind.describe(info.mode))))
                }
            }
        }
        return items.sorted { $0.path < $1.path }
    }
}
