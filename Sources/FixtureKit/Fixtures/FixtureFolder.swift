import FixtureKitSystem
import FixtureKitModels

/// Puts a fixture folder in place as a whole: it is built under a temporary
/// name beside its final one, then renamed. A run killed half-way leaves either
/// the old folder or the new one, and the next run cleans up after it.
enum FixtureFolder {
    /// The fixture folder of `version` in `corpus`, once the version is known to be
    /// a semantic version and the folder to be a plain name directly inside the
    /// corpus: a label such as `1.0.0+/../../x` never becomes a path elsewhere.
    /// - Throws: ``FixtureKitError`` (a usage error) naming `path`.
    static func path(of version: String, in corpus: String, what: String, path: String) throws(FixtureKitError) -> String {
        guard Version(version) != nil else {
            throw FixtureKitError(what: what, path: path, why: Version.whyNot(version), hint: "use a version such as 1.2.0", category: .usage)
        }
        // A semantic version is a plain name; say so rather than assume it.
        guard version.isSafeFileName, !version.hasPrefix(".") else {
            throw FixtureKitError(what: what, path: path, why: "'\(version.escapingControlCharacters())' would name a folder outside the corpus", category: .usage)
        }
        return corpus.appendingPath(version)
    }

    /// `.1.0.0.tmp` beside `1.0.0`: where a new fixture is built.
    static func stagingPath(for target: String) -> String { sibling(of: target, suffix: ".tmp") }

    /// `.1.0.0.old` beside `1.0.0`: where a replaced fixture waits to be removed.
    static func retiredPath(for target: String) -> String { sibling(of: target, suffix: ".old") }

    private static func sibling(of target: String, suffix: String) -> String {
        let trimmed = target.hasSuffix("/") ? String(target.dropLast()) : target
        let name = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        return AtomicFile.parentFolder(of: trimmed).appendingPath("." + name + suffix)
    }

    /// Finishes or undoes what a killed run left around `target`, then creates
    /// an empty staging folder for it.
    /// - Returns: the staging folder's path.
    static func prepareStaging(for target: String) throws(FileSystemError) -> String {
        try recover(target)
        let staging = stagingPath(for: target)
        try POSIX.createFolder(staging)
        return staging
    }

    /// A replacement whose journal is whole is finished (``FixtureReplacement``);
    /// a replaced folder left under its retired name goes back if the new one
    /// never arrived, and away if it did; a half-built staging folder goes away.
    static func recover(_ target: String) throws(FileSystemError) {
        do { try FixtureReplacement.finish(target, what: "finish an interrupted replacement") } catch {
            throw FileSystemError("finish an interrupted replacement", path: target, message: error.why)
        }
        ScratchFolder.remove(stagingPath(for: target))
        let retired = retiredPath(for: target)
        guard try POSIX.lstatIfPresent(retired) != nil else { return }
        if try POSIX.lstatIfPresent(target) == nil {
            try POSIX.rename(retired, target)
        } else {
            ScratchFolder.remove(retired)
        }
        try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: target))
    }

    /// Renames the finished staging folder to `target`, replacing an existing
    /// folder when `replace` is set: the two are swapped in one step
    /// (`RENAME_EXCHANGE`), so `target` always names a whole fixture, and the old
    /// one, now under the staging name, is removed after.
    /// - Returns: whether a folder was replaced.
    @discardableResult
    static func install(_ staging: String, at target: String, replace: Bool) throws(FileSystemError) -> Bool {
        try POSIX.fsyncDirectory(staging)
        let parent = AtomicFile.parentFolder(of: target)
        let exists = try POSIX.lstatIfPresent(target) != nil
        if exists {
            guard replace else { throw FileSystemError("install", path: target, code: .fileExists) }
            try POSIX.exchange(staging, target)
            try POSIX.fsyncDirectory(parent)
            ScratchFolder.remove(staging)
        } else {
            try POSIX.renameNoReplace(staging, target)
        }
        try POSIX.fsyncDirectory(parent)
        return exists
    }

    /// Creates `path` and its missing parents, as `mkdir -p`.
    static func createFolders(_ path: String) throws(FileSystemError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current = current.isEmpty ? "/" + component : current + "/" + component
            try POSIX.createFolder(current, existing: true)
        }
    }
}
