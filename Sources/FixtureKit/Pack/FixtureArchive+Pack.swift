#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// How ``FixtureArchive/pack(_:options:)`` writes.
public struct PackOptions: Sendable, Equatable {
    public var format: ArchiveFormat
    /// The compression level; `nil` for the format's ``ArchiveFormat/defaultLevel``.
    public var level: Int?
    /// The archive's path; `nil` for ``FixtureArchive/defaultOutput(for:format:)``.
    public var output: String?
    /// Every entry's modification time, in seconds since 1970: `SOURCE_DATE_EPOCH`
    /// when it is set (see ``modificationTime(sourceDateEpoch:)``), else 0.
    public var modificationTime: Int64
    /// Replace an archive that the corpus' `fixturekit.lock` locks, and its line.
    public var force: Bool
    /// The mode of the archive and of its checksum file: 0644, or narrower for a
    /// backup of a private store.
    var fileMode: mode_t = ArchiveWriter.fileMode

    public init(format: ArchiveFormat = .default, level: Int? = nil, output: String? = nil, modificationTime: Int64 = 0, force: Bool = false) {
        self.format = format
        self.level = level
        self.output = output
        self.modificationTime = modificationTime
        self.force = force
    }

    /// The options a command line names, checked: the format given, else the one
    /// `output`'s suffix names (`.tar.gz`), else ``ArchiveFormat/default``; a level
    /// in the format's range.
    /// - Throws: ``FixtureKitError`` (a usage error) for an unknown format, an output
    ///   whose name does not end in the suffix of a format `pack` writes, a name
    ///   whose suffix contradicts the format, a level out of range.
    public init(output: String?, format name: String?, level text: String?) throws(FixtureKitError) {
        func usage(_ why: String) -> FixtureKitError { FixtureKitError(what: "pack", why: why, category: .usage) }
        self.init(output: output)
        if let output, let why = Self.unnamedFormat(output) { throw usage(why) }
        let suffixed = output.flatMap { ArchiveFormat(fileName: $0) }
        if let name {
            guard let named = ArchiveFormat(rawValue: name), ArchiveFormat.packable.contains(named) else {
                throw usage("'--format' is tar.zst, tar.gz or tar.xz, not '\(name)'")
            }
            format = named
        } else if let suffixed, ArchiveFormat.packable.contains(suffixed) {
            format = suffixed
        }
        if let output, let suffixed, suffixed != format {
            throw usage("'\(output)' is named like a \(suffixed.rawValue) archive, not \(format.rawValue)")
        }
        if let text {
            guard let value = Int(text), format.levels.contains(value) else {
                throw usage("'--level' for \(format.rawValue) is \(format.levels.lowerBound) to \(format.levels.upperBound), not '\(text)'")
            }
            level = value
        }
    }

    /// Why `output` cannot be an archive's name, or `nil`: its name must end in the
    /// suffix of a format `pack` writes (`.tar.zst`, `.tar.gz`, `.tar.xz`), so that the
    /// name says the format and every reader (`verify`, `status`, the migration runner)
    /// recognises it. `-o x.zip` or `-o x.tgz` would otherwise write zstd under a
    /// name that says something else.
    static func unnamedFormat(_ output: String) -> String? {
        if let format = ArchiveFormat(fileName: output), ArchiveFormat.packable.contains(format) { return nil }
        let suffixes = ArchiveFormat.packable.map(\.suffix).joined(separator: ", ")
        return "'\(output.escapingControlCharacters())' does not end in \(suffixes): an archive's name says its format"
    }

    /// The largest time a ustar header holds (11 octal digits): a later one would
    /// need a pax record.
    public static let maxModificationTime: Int64 = 0o77777777777

    /// The modification time that `SOURCE_DATE_EPOCH` asks for
    /// (https://reproducible-builds.org/specs/source-date-epoch/): 0 when it is
    /// unset or empty.
    /// - Throws: ``FixtureKitError`` when it is set to anything but a whole number
    ///   of seconds from 0 to ``maxModificationTime``, as the specification asks.
    public static func modificationTime(sourceDateEpoch: String?) throws(FixtureKitError) -> Int64 {
        guard let text = sourceDateEpoch, !text.isEmpty else { return 0 }
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int64(text), value <= maxModificationTime
        else {
            throw FixtureKitError(
                what: "pack", path: "SOURCE_DATE_EPOCH",
                why: "\"\(text)\" is not a whole number of seconds since 1970 (0 to \(maxModificationTime))")
        }
        return value
    }
}

/// What ``FixtureArchive/pack(_:options:)`` wrote.
public struct PackResult: Sendable, Equatable, Codable {
    /// The fixture folder, as given.
    public var folder: String
    /// The archive written.
    public var archive: String
    /// The detached checksum written beside it: `<archive>.sha256`.
    public var checksumFile: String
    public var format: ArchiveFormat
    public var level: Int
    /// The archive's SHA-256, as in the checksum file.
    public var sha256: String
    /// The archive's size in bytes.
    public var size: UInt64
    public var files: Int
    public var folders: Int
    /// The bytes of the files packed.
    public var bytes: UInt64
    /// Whether a file was at the archive's path before.
    public var replaced: Bool
    /// The archive's line in the corpus' `fixturekit.lock`, when the archive was
    /// written into a corpus that has one.
    public var lock: [LockEdit]?
}

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
                try write(plan, to: output, format: format, level: level, modificationTime: options.modificationTime, fileMode: options.fileMode, progress: progress)
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
    public static let checksumSuffix = ".sha256"

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
    public static func defaultOutput(for folder: String, format: ArchiveFormat) throws(FixtureKitError) -> String {
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
            guard let resolved = realpath(folder, nil) else {
                throw FixtureKitError(what: "pack", path: folder, why: "cannot resolve the folder's name")
            }
            location = String(cString: resolved)
            free(resolved)
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
        guard let resolvedParent = realpath(parent, nil) else {
            throw FixtureKitError(what: "pack", path: parent, why: "no such folder", hint: "create it first")
        }
        defer { free(resolvedParent) }
        guard let resolvedFolder = realpath(folder, nil) else {
            throw FixtureKitError(what: "pack", path: folder, why: "no such folder")
        }
        defer { free(resolvedFolder) }
        let outputFolder = String(cString: resolvedParent), packed = String(cString: resolvedFolder)
        if outputFolder == packed || outputFolder.hasPrefix(packed.hasSuffix("/") ? packed : packed + "/") {
            throw FixtureKitError(
                what: "pack", path: output, why: "is inside the folder being packed",
                hint: "write the archive beside the fixture folder", category: .usage)
        }
        if let info = try? POSIX.lstatIfPresent(output), (info.st_mode & S_IFMT) == S_IFDIR {
            throw FixtureKitError(what: "pack", path: output, why: "is a folder")
        }
    }

    // MARK: - Writing

    /// Streams the plan's entries into `<output>.tmp`, hashing each file on a
    /// second thread while it is compressed, then renames it and writes the
    /// checksum file.
    private static func write(_ plan: PackPlan, to output: String, format: ArchiveFormat, level: Int, modificationTime: Int64, fileMode: mode_t, progress: WorkProgress?) throws(FixtureKitError) -> (digest: SHA256Digest, size: UInt64) {
        let temporary = AtomicFile.temporaryPath(for: output)
        let checksumFile = output + checksumSuffix
        let checksumTemporary = AtomicFile.temporaryPath(for: checksumFile)
        let buffers = (0..<2).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: ArchiveScanner.chunkSize, alignment: 4096) }
        defer { buffers.forEach { $0.deallocate() } }
        var fd: Int32 = -1
        do {
            fd = try POSIX.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: fileMode)
            guard fchmod(fd, fileMode) == 0 else { throw FileSystemError("chmod", path: temporary, errno: errno) }
            let writer = try ArchiveWriter(fd: fd, path: temporary, format: format, level: level)
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
            try writer.close()
            try POSIX.fsync(fd, path: temporary)
            close(fd)
            fd = -1
            let digest = try writer.digest()
            let name = output.split(separator: "/").last.map(String.init) ?? output
            let line = SHA256Sums(entries: [SHA256SumsEntry(path: RelativePath(name), digest: digest)]).rendered()
            try writeFlushed(line, to: checksumTemporary, mode: fileMode)
            try POSIX.rename(temporary, output)
            try POSIX.rename(checksumTemporary, checksumFile)
            try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: output))
            return (digest, writer.byteCount)
        } catch {
            if fd >= 0 { close(fd) }
            unlink(temporary)
            unlink(checksumTemporary)
            if let error = error as? FixtureKitError { throw error }
            throw FixtureKitError.wrapping(error, what: "pack", path: output)
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
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw FileSystemError("stat", path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw plan.failedCheck() }
        _ = posix_fadvise(input, 0, 0, POSIX_FADV_SEQUENTIAL)
        FaultInjection.reached(.opened, path)
        let size = UInt64(info.st_size)
        try writer.beginFile(file.path, size: size, modificationTime: modificationTime)
        let reader = ChunkReader(fd: input, path: path, hasher: hasher)
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
    private static func open(_ path: String, of plan: PackPlan) throws -> Int32 {
        do {
            return try POSIX.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
        } catch {
            guard [ENOENT, ENOTDIR, ELOOP].contains(error.errno) else { throw error }
            throw plan.failedCheck()
        }
    }

    /// Writes a small file and flushes it, without renaming it.
    private static func writeFlushed(_ bytes: [UInt8], to path: String, mode: mode_t) throws(FileSystemError) {
        let fd = try POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, mode: mode)
        defer { close(fd) }
        guard fchmod(fd, mode) == 0 else { throw FileSystemError("chmod", path: path, errno: errno) }
        let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
            do throws(FileSystemError) {
                try POSIX.writeAll(fd, buffer, path: path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        try POSIX.fsync(fd, path: path)
    }
}

/// What `pack` will write, found before the archive is started: the folder's
/// SHA256SUMS, and its files and folders in the archive's order.
struct PackPlan {
    struct File {
        var path: RelativePath
        var digest: SHA256Digest
        var size: UInt64
    }

    enum Item {
        case sums
        case folder(RelativePath)
        case file(File)
    }

    static let manifestPath = RelativePath("manifest.json")

    let folder: String
    /// SHA256SUMS exactly as read: the archive holds these bytes.
    let sumsBytes: [UInt8]
    let files: [File]
    /// `SHA256SUMS`, `manifest.json`, then the other paths bytewise, each folder
    /// on the way to a file before it.
    let items: [Item]

    var fileCount: Int { files.count }
    var folderCount: Int { items.filter { if case .folder = $0 { true } else { false } }.count }
    var fileBytes: UInt64 { files.reduce(0) { $0 + $1.size } }

    /// Reads `folder/SHA256SUMS` and lists the folder; a folder whose listing
    /// does not match its SHA256SUMS is refused with ``failedCheck(folder:)``.
    init(folder: String) throws(FixtureKitError) {
        self.folder = folder
        let info: stat?
        do { info = try POSIX.lstatIfPresent(folder) } catch { throw FixtureKitError.wrapping(error, what: "pack") }
        guard let info else { throw FixtureKitError(what: "pack", path: folder, why: "no such folder") }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw FixtureKitError(what: "pack", path: folder, why: "not a fixture folder", hint: "pack a folder holding SHA256SUMS")
        }
        let sumsBytes: [UInt8]
        let items: [FolderItem]
        do {
            sumsBytes = try POSIX.readFile(folder.appendingPath(SHA256Sums.fileName))
            items = try FolderListing.items(below: folder)
        } catch {
            // Absent or unreadable SHA256SUMS, or an unreadable folder: as verify says it.
            throw Self.failedCheck(folder: folder)
        }
        let sums = SHA256Sums(parsing: sumsBytes)
        let present = Set(items.map(\.path))
        var sizes: [RelativePath: UInt64] = [:]
        for item in items {
            guard case .file(let size) = item.kind else { throw Self.failedCheck(folder: folder) }
            sizes[item.path] = size
        }
        let listed = Set(sums.entries.map(\.path))
        let unlisted = present.subtracting(listed).subtracting([ArchiveScanner.sumsPath])
        guard sums.problems.isEmpty, !sums.entries.isEmpty, !listed.contains(ArchiveScanner.sumsPath),
            unlisted.isEmpty, listed.isSubset(of: present)
        else { throw Self.failedCheck(folder: folder) }

        self.sumsBytes = sumsBytes
        files = sums.entries.map { File(path: $0.path, digest: $0.digest, size: sizes[$0.path] ?? 0) }.sorted { $0.path < $1.path }
        var order: [Item] = [.sums]
        var rest: [(RelativePath, Item)] = []
        var folders: Set<RelativePath> = []
        for file in files {
            for ancestor in file.path.ancestors where folders.insert(ancestor).inserted {
                rest.append((ancestor, .folder(ancestor)))
            }
            if file.path == Self.manifestPath {
                order.append(.file(file))
            } else {
                rest.append((file.path, .file(file)))
            }
        }
        order += rest.sorted { $0.0 < $1.0 }.map(\.1)
        self.items = order
    }

    /// The refusal of a folder that fails its SHA256SUMS, with every problem
    /// `verify` reports (exit status 1).
    static func failedCheck(folder: String) -> FixtureKitError {
        let verification: FolderVerification
        do {
            verification = try Checksums.verifyFolder(folder)
        } catch {
            return error.within("pack")
        }
        guard !verification.passed else {
            return FixtureKitError(what: "pack", path: folder, why: "the folder changed while it was being packed", hint: "pack it again")
        }
        let sumsMissing = verification.problems.contains { $0.kind == .missing && $0.file == SHA256Sums.fileName }
        return FixtureKitError(
            what: "pack", path: folder,
            why: "the folder fails its SHA256SUMS: " + FixtureArchive.summary(of: verification.problems),
            hint: sumsMissing ? "write one with `fixturekit sums \(folder)`" : "`fixturekit verify \(folder)` lists every problem",
            category: .checkFailed)
    }

    /// ``failedCheck(folder:)`` for this plan's folder.
    func failedCheck() -> FixtureKitError {
        Self.failedCheck(folder: folder)
    }
}

/// Reads a file chunk by chunk on a pipeline's second thread, hashing each chunk
/// as it arrives; ``count`` is read by the first thread after waiting on the stage.
private final class ChunkReader {
    let fd: Int32
    let path: String
    let hasher: SHA256
    /// The bytes the last ``read(into:)`` got: 0 at the end of the file.
    private(set) var count = 0

    init(fd: Int32, path: String, hasher: SHA256) {
        self.fd = fd
        self.path = path
        self.hasher = hasher
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws {
        let result = POSIX.retrying { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        guard result >= 0 else { throw FileSystemError("read", path: path, errno: errno) }
        count = result
        try hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<result]))
    }
}
