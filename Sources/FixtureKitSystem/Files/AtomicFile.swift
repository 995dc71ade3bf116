/// Writes files so that they are never seen half-written under their final name.
package enum AtomicFile {
    /// The temporary name a file is written under before it is renamed: `name.tmp`
    /// beside it. A run killed half-way leaves only this name, which the next
    /// write of the same file truncates and reuses.
    package static func temporaryPath(for path: String) -> String { path + ".tmp" }

    /// Writes `bytes` to `path.tmp`, fsyncs it, renames it to `path` and fsyncs the
    /// folder. On any error the temporary file is removed and `path` is as before.
    /// - Parameter replace: `false` refuses a file already at `path` (`EEXIST`), even
    ///   one that appears while this one is written.
    package static func write(_ bytes: [UInt8], to path: String, mode: FileMode = 0o644, replace: Bool = true) throws(FileSystemError) {
        let temporary = temporaryPath(for: path)
        let fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .noFollow], permissions: mode)
        do throws(FileSystemError) {
            // Closed before the rename, and only once, whatever fails.
            try fd.closeAfter { fd throws(FileSystemError) in
                try fd.writeAll(bytes)
                // The umask may have narrowed the mode given to open.
                try fd.setPermissions(mode)
                try fd.sync()
            }
            if replace { try POSIX.rename(temporary, path) } else { try POSIX.renameNoReplace(temporary, path) }
        } catch {
            try? POSIX.removeFile(temporary)
            throw error
        }
        try POSIX.fsyncDirectory(parentFolder(of: path))
    }

    /// The folder holding `path`: `.` for a bare name.
    package static func parentFolder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
