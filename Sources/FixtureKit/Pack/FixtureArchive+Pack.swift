import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

extension FixtureArchive {
    /// Packs a fixture folder into one byte-reproducible archive and its detached
    /// checksum, `<archive>.sha256` (`sha256sum -c` checks it).
    ///
    /// The archive's bytes depend only on the files' names and contents and on the
    /// format, level and modification time asked for: entries in a fixed order
    /// (`SHA256SUMS`, `manifest.json`, then every other path bytewise, folders
    /// included), and fixed headers (see ``ArchiveWriter``).
    ///
    /// The folder must pass its `SHA256SUMS`: every file is hashed while it is
    /// packed, in the same read, and a folder that fails (a file changed, missing,
    /// unlisted, not a regular file; a malformed or absent SHA256SUMS) is refused
    /// with the problems of ``Checksums/verifyFolder(_:threads:)``. The archive is
    /// written to `<archive>.tmp`, flushed, then renamed, and its checksum file the
    /// same way: never half-written under its name.
    /// - Throws: ``FixtureKitError``: a failed check (exit status 1) or a failure
    ///   to read or write (2).
    /// - Parameter progress: told of the bytes packed.
    public static func pack(_ folder: String, options: PackOptions = PackOptions(), progress: WorkProgress? = nil) throws(FixtureKitError) -> PackResult {
        let folder = folder.trimmingTrailingSlashes
        let format = options.format
        let level = options.level ?? format.defaultLevel
        guard ArchiveFormat.packable.contains(format) else {
            throw FixtureKitError(what: "pack", path: folder, why: "cannot write \(format.rawValue) archives", category: .usage)
        }
        guard format.levels.contains(level) else {
            throw FixtureKitError(
                what: "pack", path: folder,
                why: "level \(level) is not a \(format.rawValue) level (\(format.levels.lowerBound) to \(format.levels.upperBound))",
                category: .usage)
        }
        let plan = try PackPlan(folder: folder)
        if options.output == standardOutput {
            return try stream(plan, format: format, level: level, options: options, progress: progress)
        }
        let output: String
        if let given = options.output {
            output = given
        } else {
            output = try defaultOutput(for: folder, format: format, plan: plan)
        }
        if let why = PackOptions.unnamedFormat(output) {
            throw FixtureKitError(what: "pack", path: output, why: why, category: .usage)
        }
        guard ArchiveFormat(fileName: output) == format else {
            throw FixtureKitError(what: "pack", path: output, why: "is named like a \(ArchiveFormat(fileName: output)?.rawValue ?? "?") archive, not \(format.rawValue)", category: .usage)
        }
        try checkOutput(output, folder: folder)
        let lockTarget = try Self.lockTarget(folder: folder, output: output, force: options.force)
        let replaced = (try? POSIX.lstatIfPresent(output)) != nil
        guard ArchiveLocale.isAvailable || plan.files.allSatisfy({ $0.path.bytes.allSatisfy { $0 < 0x80 } }) else {
            throw FixtureKitError(what: "pack", path: folder, why: "cannot write non-ASCII file names: this system has no C.UTF-8 locale")
        }
        let written = try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
            try progress.step("pack \(output)", total: plan.fileBytes) { () throws(FixtureKitError) in
                try write(plan, to: output, format: format, level: level, options: options, progress: progress)
            }
        }
        var result = PackResult(
            folder: folder, archive: output, checksumFile: output + checksumSuffix, format: format, level: level,
            sha256: written.digest.hex, size: written.size, files: plan.fileCount, folders: plan.folderCount,
            bytes: plan.fileBytes, replaced: replaced)
        if let lockTarget, lockTarget.hasLock {
            let name = output.split(separator: "/").last.map(String.init) ?? output
            result.lock = try CorpusLock.update(lockTarget, kinds: [.archive], known: [CorpusLock.Fact(.archive, lockTarget.version, name): written.digest])
                .filter { $0.fact.path == name }
        }
        return result
    }

    /// The corpus and version of an archive written into a corpus, after refusing
    /// to replace one its `fixturekit.lock` locks (unless `force`), or one named for
    /// another version than the fixture folder of the same corpus that it packs.
    private static func lockTarget(folder: String, output: String, force: Bool) throws(FixtureKitError) -> LockTarget? {
        guard let target = try CorpusLock.guardRewrite(of: output, archive: true, what: "pack", force: force) else { return nil }
        if let (corpus, name) = LockCheck.locate(folder), corpus == target.corpus, name != target.version {
            throw FixtureKitError(
                what: "pack", path: output, why: "names version \(target.version), but \(folder) is the fixture of \(name)",
                hint: "name the archive after its version, or leave -o out", category: .usage)
        }
        return target
    }

    /// The detached checksum's suffix: `App-1.0.0.tar.zst.sha256`.
    package static let checksumSuffix = ".sha256"

    /// Where `pack` writes when not told: `<store>-<version><suffix>` beside the
    /// fixture folder, e.g. `MigrationFixtures/App-1.0.0.tar.zst` for
    /// `MigrationFixtures/1.0.0` holding `App.sqlite`.
    ///
    /// The version is the folder's name. The store is the one `manifest.json`
    /// names (its `"store"` key: a file name, or an object with a `"name"`), else
    /// the only `*.sqlite` file at the folder's top, else its largest top-level file
    /// that is not a sidecar (`-wal`, `-shm`, `-journal`), `manifest.json` or
    /// `SHA256SUMS`; its name is used without its extension (`App`, not
    /// `App.sqlite`), so that the archive's name does not read as one of the store's
    /// sidecars (`App.sqlite-…`).
    static func defaultOutput(for folder: String, format: ArchiveFormat) throws(FixtureKitError) -> String {
        try defaultOutput(for: folder.trimmingTrailingSlashes, format: format, plan: PackPlan(folder: folder.trimmingTrailingSlashes))
    }

    private static func defaultOutput(for folder: String, format: ArchiveFormat, plan: PackPlan) throws(FixtureKitError) -> String {
        guard let store = storeName(folder: folder, plan: plan) else {
            throw FixtureKitError(
                what: "pack", path: folder, why: "no store file to name the archive after",
                hint: "name the archive with -o FILE")
        }
        var location = folder
        var version = location.split(separator: "/").last.map(String.init) ?? location
        if version == "." || version == ".." || folder == "/" {
            guard let resolved = POSIX.realPath(folder) else {
                throw FixtureKitError(what: "pack", path: folder, why: "cannot resolve the folder's name")
            }
            location = resolved
            version = location.split(separator: "/").last.map(String.init) ?? ""
        }
        guard !version.isEmpty else {
            throw FixtureKitError(what: "pack", path: folder, why: "the folder has no name to use as the version", hint: "name the archive with -o FILE")
        }
        let name = stem(of: store) + "-" + version + format.suffix
        guard location.contains("/") else { return name }
        return AtomicFile.parentFolder(of: location).appendingPath(name)
    }

    /// The store's file name, as ``defaultOutput(for:format:)`` explains.
    static func storeName(folder: String, plan: PackPlan) -> String? {
        if plan.files.contains(where: { $0.path == PackPlan.manifestPath }),
            let bytes = try? POSIX.readFile(folder.appendingPath(PackPlan.manifestPath.description)),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] {
            let store = object["store"]
            let name = store as? String ?? (store as? [String: Any])?["name"] as? String
            if let name, !name.isEmpty, !name.contains("/") { return name }
        }
        let topLevel = plan.files.filter { file in
            !file.path.bytes.contains(UInt8(ascii: "/")) && file.path != PackPlan.manifestPath
                && !["-wal", "-shm", "-journal"].contains(where: { file.path.description.hasSuffix($0) })
        }
        let stores = topLevel.filter { $0.path.description.hasSuffix(".sqlite") }
        if stores.count == 1 { return stores[0].path.description }
        // Largest first; equal sizes in bytewise order of their names.
        let largest = topLevel.min { $0.size != $1.size ? $0.size > $1.size : $0.path < $1.path }
        return largest?.path.description
    }

    /// `App` for `App.sqlite`; a name without an extension (or a dot file) as it is.
    static func stem(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// Refuses an archive inside the folder it packs, and a folder at its path.
    private static func checkOutput(_ output: String, folder: String) throws(FixtureKitError) {
        let parent = AtomicFile.parentFolder(of: output)
        guard let outputFolder = POSIX.realPath(parent) else {
            throw FixtureKitError(what: "pack", path: parent, why: "no such folder", hint: "create it first")
        }
        guard let packed = POSIX.realPath(folder) else {
            throw FixtureKitError(what: "pack", path: folder, why: "no such folder")
        }
        if outputFolder == packed || outputFolder.hasPrefix(packed.hasSuffix("/") ? packed : packed + "/") {
            throw FixtureKitError(
                what: "pack", path: output, why: "is inside the folder being packed",
                hint: "write the archive beside the fixture folder", category: .usage)
        }
        if let info = try? POSIX.lstatIfPresent(output), info.kind == .folder {
            throw FixtureKitError(what: "pack", path: output, why: "is a folder")
        }
    }

    // MARK: - Writing

    /// What names standard output as the archive (`pack -o -`).
    package static let standardOutput = "-"
    /// What names standard input as the archive (`verify -`, `unpack - DEST`).
    package static let standardInput = ArchiveReader.standardInput

    /// `pack -o -`: the archive streamed on standard output, for a pipeline
    /// (`fixturekit pack DIR -o - | fixturekit unpack - DEST`): no checksum file,
    /// no lock line, nothing written under a name; its digest is in the result.
    private static func stream(_ plan: PackPlan, format: ArchiveFormat, level: Int, options: PackOptions, progress: WorkProgress?) throws(FixtureKitError) -> PackResult {
        guard !FileDescriptor.standardOutput.isTerminal else {
            throw FixtureKitError(what: "pack", path: "stdout", why: "is a terminal: an archive is written to a file or a pipe", hint: "redirect it, or name a file with -o", category: .usage)
        }
        let written = try ArchiveLocale.withUTF8 { () throws(FixtureKitError) in
            try progress.step("pack \(plan.folder)", total: plan.fileBytes) { () throws(FixtureKitError) in
                do {
                    let writer = try ArchiveWriter(fd: FileDescriptor.standardOutput.rawValue, path: "stdout", format: format, level: level, workers: options.workers)
                    try writeEntries(plan, into: writer, modificationTime: options.modificationTime, progress: progress)
                    try writer.close()
                    return (digest: try writer.digest(), size: writer.byteCount)
                } catch let error as FixtureKitError {
                    throw error
                } catch {
                    throw FixtureKitError.wrapping(error, what: "pack", path: "stdout")
                }
            }
        }
        return PackResult(
            folder: plan.folder, archive: standardOutput, checksumFile: nil, format: format, level: level,
            sha256: written.digest.hex, size: written.size, files: plan.fileCount, folders: plan.folderCount,
            bytes: plan.fileBytes, replaced: false)
    }

    /// Streams the plan's entries into `<output>.tmp`, hashing each file on a
    /// second thread while it is compressed, then renames it and writes the
    /// checksum file.
    private static func write(_ plan: PackPlan, to output: String, format: ArchiveFormat, level: Int, options: PackOptions, progress: WorkProgress?) throws(FixtureKitError) -> (digest: SHA256Digest, size: UInt64) {
        let fileMode = options.fileMode
        let temporary = AtomicFile.temporaryPath(for: output)
        let checksumFile = output + checksumSuffix
        let checksumTemporary = AtomicFile.temporaryPath(for: checksumFile)
        var file: FileDescriptor?
        do {
            let fd = try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .noFollow], permissions: fileMode)
            file = fd
            try fd.setPermissions(fileMode)
            let writer = try ArchiveWriter(fd: fd.rawValue, path: temporary, format: format, level: level, workers: options.workers)
            try writeEntries(plan, into: writer, modificationTime: options.modificationTime, progress: progress)
            try writer.close()
            try fd.sync()
            try? fd.close()
            file = nil
            let digest = try writer.digest()
            let name = output.split(separator: "/").last.map(String.init) ?? output
            let line = SHA256Sums(entries: [SHA256SumsEntry(path: RelativePath(name), digest: digest)]).rendered()
            try writeFlushed(line, to: checksumTemporary, mode: fileMode)
            try POSIX.rename(temporary, output)
            try POSIX.rename(checksumTemporary, checksumFile)
            try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: output))
            return (digest, writer.byteCount)
        } catch {
            try? file?.close()
            try? POSIX.removeFile(temporary)
            try? POSIX.removeFile(checksumTemporary)
            if let error = error as? FixtureKitError { throw error }
            throw FixtureKitError.wrapping(error, what: "pack", path: output)
        }
    }

    /// The chunks a file is read, hashed and compressed in. zstd copies its input
    /// into jobs of its own, so larger chunks add memory, not speed: 4 MiB ones
    /// took `pack`'s peak to 91 to 105 MiB on a 962 MiB fixture.
    static let packChunkSize = 1 << 20

    /// Every entry of the plan, in its order, into `writer`; each file hashed on
    /// a second thread while it is compressed, and checked against SHA256SUMS.
    private static func writeEntries(_ plan: PackPlan, into writer: ArchiveWriter, modificationTime: Int64, progress: WorkProgress?) throws {
        let buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: Self.packChunkSize, alignment: 4096) }
        defer { buffers.forEach { $0.deallocate() } }
        let hasher = try SHA256()
        let stage = BackgroundStage()
        for item in plan.items {
            switch item {
            case .folder(let path):
                try writer.addFolder(path, modificationTime: modificationTime)
            case .sums:
                try writer.beginFile(ArchiveScanner.sumsPath, size: UInt64(plan.sumsBytes.count), modificationTime: modificationTime)
                try plan.sumsBytes.withUnsafeBytes { try writer.write($0) }
            case .file(let file):
                let digest = try packFile(file, of: plan, into: writer, buffers: buffers, hasher: hasher, stage: stage, modificationTime: modificationTime, progress: progress)
                guard digest == file.digest else { throw plan.failedCheck() }
            }
        }
    }

    /// Streams one file into the archive; its digest, computed from the very bytes
    /// packed. The stage's thread reads and hashes the next chunk while this one
    /// compresses the current one.
    private static func packFile(
        _ file: PackPlan.File, of plan: PackPlan, into writer: ArchiveWriter, buffers: [UnsafeMutableRawBufferPointer],
        hasher: SHA256, stage: BackgroundStage, modificationTime: Int64, progress: WorkProgress?
    ) throws -> SHA256Digest {
        let path = plan.folder.appendingPath(file.path.description)
        FaultInjection.reached(.willOpen, path)
        let input = try open(path, of: plan)
        defer { try? input.close() }
        let info = try input.status()
        guard info.kind == .regular else { throw plan.failedCheck() }
        input.adviseSequential()
        FaultInjection.reached(.opened, path)
        let size = UInt64(info.size)
        try writer.beginFile(file.path, size: size, modificationTime: modificationTime)
        let reader = ChunkReader(fd: input, hasher: hasher)
        stage.start { try reader.read(into: buffers[0]) }
        var current = 0
        var total: UInt64 = 0
        while true {
            try stage.wait()
            let count = reader.count
            if count == 0 { break }
            total += UInt64(count)
            // A file that grows while it is packed would overflow its header's size.
            guard total <= size else { throw plan.failedCheck() }
            let next = current ^ 1
            stage.start { try reader.read(into: buffers[next]) }
            do {
                try writer.write(UnsafeRawBufferPointer(rebasing: buffers[current][0..<count]))
            } catch {
                stage.drain()
                throw error
            }
            progress?.advance(UInt64(count))
            current = next
        }
        guard total == size else { throw plan.failedCheck() }
        return try hasher.finalize()
    }

    /// Opens a file of the plan to pack it. One that is gone, or a link now, since
    /// the plan was made fails the check as it would have before.
    private static func open(_ path: String, of plan: PackPlan) throws -> FileDescriptor {
        do {
            return try FileDescriptor.open(path, .readOnly, options: [.noFollow, .nonBlocking])
        } catch {
            guard [.noSuchFileOrDirectory, .notDirectory, .tooManySymbolicLinkLevels].contains(error.code) else { throw error }
            throw plan.failedCheck()
        }
    }

    /// Writes a small file and flushes it, without renaming it.
    private static func writeFlushed(_ bytes: [UInt8], to path: String, mode: FileMode) throws(FileSystemError) {
        try FileDescriptor.open(path, .writeOnly, options: [.create, .truncate, .noFollow], permissions: mode).closeAfter { fd throws(FileSystemError) in
            try fd.setPermissions(mode)
            try fd.writeAll(bytes)
            try fd.sync()
        }
    }
}

/// Reads a file chunk by chunk on a pipeline's second thread, hashing each chunk
/// as it arrives; ``count`` is read by the first thread after waiting on the stage.
private final class ChunkReader {
    let fd: FileDescriptor
    let hasher: SHA256
    /// The bytes the last ``read(into:)`` got: 0 at the end of the file.
    private(set) var count = 0

    init(fd: FileDescriptor, hasher: SHA256) {
        self.fd = fd
        self.hasher = hasher
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws {
        let result = try fd.read(into: buffer)
        count = result
        try hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<result]))
    }
}
