import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// Where the bytes of the files an archive scan accepts go: nowhere (`verify`,
/// `inspect`) or into a folder (`unpack`).
///
/// ``write(_:)`` runs on a second thread, one chunk after another, between
/// ``beginFile(_:)`` and ``endFile()``, which run on the caller's.
protocol ArchiveScanSink: AnyObject {
    func beginFile(_ path: RelativePath) throws
    func write(_ bytes: UnsafeRawBufferPointer) throws
    func endFile() throws
}

/// One streaming pass over a fixture archive: every header checked before its
/// data is read, every listed file hashed against the archive's first entry,
/// `SHA256SUMS`.
///
/// An archive is refused (a thrown ``FixtureKitError``, exit status 2), naming the
/// entry, when it cannot be read (not a tar archive, a damaged or truncated stream)
/// or when an entry is unsafe or out of place: an absolute path or one with `..`,
/// anything but a regular file or a folder (symbolic and hard links, devices,
/// FIFOs, sockets), a path given twice or used both as a file and a folder, a
/// first file other than `SHA256SUMS`, or a size over the ``ArchiveLimits``.
/// What is wrong with the files themselves (changed, missing, unlisted) is a
/// ``VerificationProblem``, as in a folder's check (exit status 1).
final class ArchiveScanner {
    /// Chunks of this size are decompressed on one thread while the previous one
    /// is hashed (and written) on another.
    static let chunkSize = 4 << 20
    /// The most `SHA256SUMS` may hold: over half a million lines.
    static let maxSumsSize = 64 << 20
    static let sumsPath = RelativePath(SHA256Sums.fileName)

    let archivePath: String
    /// The command, for messages: `unpack`, `verify`.
    let what: String
    let limits: ArchiveLimits
    /// Told of the archive's bytes read.
    var progress: WorkProgress?

    private let reader: ArchiveReader
    private let buffers: [UnsafeMutableRawBufferPointer]
    /// The files' bytes read so far, for a stream's expansion ratio.
    private var streamed: UInt64 = 0
    private let stage = BackgroundStage()

    /// Opens the archive; nothing is read from it before ``scan(into:)``.
    ///
    /// - Throws: ``FixtureKitError`` when the file cannot be opened or libarchive
    ///   cannot start reading it.
    init(archive: String, what: String, limits: ArchiveLimits) throws(FixtureKitError) {
        reader = try ArchiveReader.open(archive, what: what)
        self.archivePath = archive
        self.what = what
        self.limits = limits
        buffers = (0..<2).map { _ in .allocate(byteCount: Self.chunkSize, alignment: 4096) }
    }

    deinit {
        stage.drain()
        buffers.forEach { $0.deallocate() }
    }

    /// Reads the whole archive once, handing each listed file's bytes to `sink`.
    ///
    /// - Throws: ``FixtureKitError``: `<what>: <archive>: entry "<name>": <why>`.
    func scan(into sink: (any ArchiveScanSink)?) throws(FixtureKitError) -> ArchiveContents {
        progress?.begin("\(what) \(archivePath)", total: reader.knownSize)
        defer { progress?.end() }
        var state = State()
        var previous: String?
        while true {
            let header: ArchiveEntry?
            do {
                header = try reader.nextEntry()
            } catch {
                throw refusal((previous.map { "after entry \($0): " } ?? "") + error.reason)
            }
            guard let entry = header else { break }
            try accept(entry, into: sink, state: &state)
            previous = entry.quotedName
        }
        return try finish(state)
    }

    /// What the pass has seen so far.
    private struct State {
        var sums: SHA256Sums?
        var listed: [RelativePath: SHA256Digest] = [:]
        /// Every path an entry named: `true` for a folder.
        var isFolder: [RelativePath: Bool] = [:]
        /// The folders that entries' paths pass through.
        var parents: Set<RelativePath> = []
        var expandedSize: UInt64 = 0
        var entries: [ArchiveContents.Entry] = []
        var problems: [VerificationProblem] = []
        /// The files SHA256SUMS does not list, and their sizes.
        var unlisted: [(path: RelativePath, size: UInt64)] = []
        var verifiedFiles = 0
        var verifiedBytes: UInt64 = 0
    }

    // MARK: - One entry

    private func accept(_ entry: ArchiveEntry, into sink: (any ArchiveScanSink)?, state: inout State) throws(FixtureKitError) {
        let name = entry.quotedName
        func refuse(_ why: String, remedy: FixtureKitError.Remedy? = nil) -> FixtureKitError {
            refusal("entry \(name): " + why, remedy: remedy)
        }
        let isFolder: Bool
        switch entry.kind {
        case .file: isFolder = false
        case .folder: isFolder = true
        default: throw refuse("is a \(entry.kindDescription), not a regular file or folder")
        }
        let path: RelativePath
        switch Self.checkedPath(entry.name, isFolder: isFolder) {
        case .failure(let why): throw refuse(why)
        case .root: return
        case .path(let checked): path = checked
        }
        if state.isFolder[path] != nil { throw refuse("duplicate entry: the archive holds this path twice") }
        if !isFolder && state.parents.contains(path) { throw refuse("is a file, but an earlier entry has it as a folder") }
        let ancestors = path.ancestors
        if let file = ancestors.first(where: { state.isFolder[$0] == false }) {
            throw refuse("its folder \(file.quoted) is a file in the archive")
        }
        state.isFolder[path] = isFolder
        state.parents.formUnion(ancestors)

        let (total, overflow) = state.expandedSize.addingReportingOverflow(entry.size)
        if overflow || total > limits.maxTotalSize {
            throw refuse(
                "the archive expands to more than \(ByteCount.describe(limits.maxTotalSize))",
                remedy: .raiseLimit(.size))
        }
        // A stream's size is known only at its end: its ratio is checked as its data flows (``stream``).
        if let size = reader.knownSize, Double(total) > limits.maxRatio * Double(max(size, 1)) {
            throw refuse(
                "the archive expands to more than \(ByteCount.describe(ratio: limits.maxRatio)) times its size (\(ByteCount.describe(size)))",
                remedy: .raiseLimit(.ratio))
        }
        state.expandedSize = total

        if isFolder {
            state.entries.append(.init(path: path.description, kind: .folder, size: 0))
            return
        }
        guard state.sums != nil else {
            guard path == Self.sumsPath else {
                throw refuse(
                    "the archive's first entry must be SHA256SUMS, before any other file",
                    remedy: .packWritesSumsFirst)
            }
            guard entry.size <= Self.maxSumsSize else {
                throw refuse("is larger than \(ByteCount.describe(UInt64(Self.maxSumsSize))), too large for a SHA256SUMS")
            }
            let bytes = try readWhole(entry, into: sink)
            let sums = SHA256Sums(parsing: bytes)
            state.sums = sums
            state.listed = Dictionary(sums.entries.map { ($0.path, $0.digest) }, uniquingKeysWith: { first, _ in first })
            let digest = try hash(bytes)
            state.entries.append(.init(path: path.description, kind: .file, size: UInt64(bytes.count), sha256: digest))
            // A SHA256SUMS that lists itself is checked as `sha256sum -c` and a folder's check do it.
            if let listed = state.listed[path] {
                if listed.hex == digest {
                    state.verifiedFiles += 1
                    state.verifiedBytes += UInt64(bytes.count)
                } else {
                    state.problems.append(VerificationProblem(kind: .changed, file: path.description, expected: listed.hex, actual: digest))
                }
            }
            return
        }
        guard let expected = state.listed[path] else {
            state.unlisted.append((path, entry.size))
            state.entries.append(.init(path: path.description, kind: .file, size: entry.size))
            do { try reader.skipData() } catch { throw refuse(error.reason) }
            return
        }
        let digest = try stream(entry, at: path, into: sink)
        state.entries.append(.init(path: path.description, kind: .file, size: entry.size, sha256: digest.hex))
        if digest == expected {
            state.verifiedFiles += 1
            state.verifiedBytes += entry.size
        } else {
            state.problems.append(VerificationProblem(kind: .changed, file: path.description, expected: expected.hex, actual: digest.hex))
        }
    }

    /// Streams one file's data through the hasher and `sink`: the next chunk is
    /// decompressed on this thread while the previous one is hashed and written on
    /// the stage's.
    private func stream(_ entry: ArchiveEntry, at path: RelativePath, into sink: (any ArchiveScanSink)?) throws(FixtureKitError) -> SHA256Digest {
        let hasher: SHA256
        do {
            hasher = try SHA256()
            try sink?.beginFile(path)
        } catch {
            throw FixtureKitError.wrapping(error, what: what, path: archivePath)
        }
        var total: UInt64 = 0
        var current = 0
        while true {
            let count: Int
            do {
                count = try reader.read(into: buffers[current])
            } catch {
                stage.drain()
                throw refusal("entry \(entry.quotedName): " + error.reason)
            }
            do { try stage.wait() } catch { throw FixtureKitError.wrapping(error, what: what, path: archivePath) }
            if count == 0 { break }
            total += UInt64(count)
            progress?.set(reader.bytesConsumed)
            guard total <= entry.size else {
                throw refusal("entry \(entry.quotedName): holds more data than its header declares")
            }
            streamed += UInt64(count)
            if reader.knownSize == nil, Double(streamed) > limits.maxRatio * Double(max(reader.bytesConsumed, 1)) {
                stage.drain()
                throw refusal(
                    "entry \(entry.quotedName): the archive expands to more than \(ByteCount.describe(ratio: limits.maxRatio)) times the bytes read of it so far (\(ByteCount.describe(reader.bytesConsumed)))",
                    remedy: .raiseLimit(.ratio))
            }
            let chunk = UnsafeRawBufferPointer(rebasing: buffers[current][0..<count])
            stage.start {
                try hasher.update(chunk)
                try sink?.write(chunk)
            }
            current ^= 1
        }
        do {
            try sink?.endFile()
            return try hasher.finalize()
        } catch {
            throw FixtureKitError.wrapping(error, what: what, path: archivePath)
        }
    }

    /// A small entry's whole data (`SHA256SUMS`), also handed to `sink`.
    private func readWhole(_ entry: ArchiveEntry, into sink: (any ArchiveScanSink)?) throws(FixtureKitError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(entry.size))
        do {
            try sink?.beginFile(Self.sumsPath)
        } catch {
            throw FixtureKitError.wrapping(error, what: what, path: archivePath)
        }
        while true {
            let count: Int
            do {
                count = try reader.read(into: buffers[0])
            } catch {
                throw refusal("entry \(entry.quotedName): " + error.reason)
            }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffers[0][0..<count])
            bytes.append(contentsOf: chunk)
            guard bytes.count <= entry.size else {
                throw refusal("entry \(entry.quotedName): holds more data than its header declares")
            }
            do { try sink?.write(chunk) } catch { throw FixtureKitError.wrapping(error, what: what, path: archivePath) }
        }
        do { try sink?.endFile() } catch { throw FixtureKitError.wrapping(error, what: what, path: archivePath) }
        return bytes
    }

    private func hash(_ bytes: [UInt8]) throws(FixtureKitError) -> String {
        do { return try SHA256.hash(bytes).hex } catch { throw FixtureKitError.wrapping(error, what: what, path: archivePath) }
    }

    // MARK: - The end

    private func finish(_ state: State) throws(FixtureKitError) -> ArchiveContents {
        guard let sums = state.sums else {
            throw refusal(
                state.entries.isEmpty ? "the archive has no entries: its first entry must be SHA256SUMS" : "no SHA256SUMS: the archive's first entry must be SHA256SUMS",
                remedy: .packWritesSumsFirst)
        }
        var malformed = sums.problems.map { VerificationProblem(kind: .malformed, file: SHA256Sums.fileName, detail: $0.description) }
        if sums.entries.isEmpty && sums.problems.isEmpty {
            malformed.append(VerificationProblem(kind: .malformed, file: SHA256Sums.fileName, detail: "no checksum lines"))
        }
        var problems = state.problems
        for entry in sums.entries where entry.path != Self.sumsPath {
            switch state.isFolder[entry.path] {
            case nil: problems.append(VerificationProblem(kind: .missing, file: entry.path.description))
            case true?: problems.append(VerificationProblem(kind: .unreadable, file: entry.path.description, detail: "is a folder, not a regular file"))
            case false?: break
            }
        }
        // An unlisted file as a folder's check names it (a reader's empty -wal
        // is told as such). A folder entry with no file below it holds no bytes:
        // like an empty folder in a fixture folder, it is no problem (and `unpack`
        // does not make it).
        let listed = Set(state.listed.keys)
        let sizes = Dictionary(state.unlisted.map { ($0.path, $0.size) }, uniquingKeysWith: { first, _ in first })
        for (path, size) in state.unlisted {
            let item = FolderItem(path: path, kind: .file(size: size))
            problems.append(Checksums.readerLeft(item, listed: listed, sizes: sizes) ?? VerificationProblem(kind: .unlisted, file: path.description))
        }
        problems.sort { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
        let verification = FolderVerification(
            path: archivePath, verifiedFiles: state.verifiedFiles, verifiedBytes: state.verifiedBytes,
            problems: malformed + problems, source: .archive)
        return ArchiveContents(
            path: archivePath, format: reader.formatName, compression: reader.compressionName,
            compressedSize: reader.fileSize, expandedSize: state.expandedSize, entries: state.entries,
            verification: verification)
    }

    private func refusal(_ why: String, remedy: FixtureKitError.Remedy? = nil) -> FixtureKitError {
        FixtureKitError(what: what, path: archivePath, why: why, remedy: remedy, category: .couldNotWork)
    }

    // MARK: - Paths

    enum CheckedPath: Equatable, Sendable {
        /// `.` or `./`: the fixture folder itself.
        case root
        case path(RelativePath)
        case failure(String)
    }

    /// An entry's name as a path inside the destination, or why it is not one.
    ///
    /// Leading `./` are dropped (GNU tar and bsdtar write them for `-C DIR .`), and
    /// a folder's trailing `/`. What remains must be relative, in UTF-8, and made of
    /// plain names: no empty, `.` or `..` component.
    static func checkedPath(_ name: [UInt8], isFolder: Bool) -> CheckedPath {
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        guard !name.isEmpty else { return .failure("has no name") }
        guard name.first != slash else { return .failure("absolute path") }
        var bytes = name[...]
        while bytes.starts(with: [dot, slash]) {
            bytes = bytes.dropFirst(2)
            while bytes.first == slash { bytes = bytes.dropFirst() }
        }
        if isFolder {
            while bytes.last == slash { bytes = bytes.dropLast() }
        }
        if bytes.isEmpty || bytes.elementsEqual([dot]) {
            return isFolder ? .root : .failure("is a file named like the folder itself")
        }
        var depth = 0
        var climbs = false
        for component in bytes.split(separator: slash, omittingEmptySubsequences: false) {
            if component.elementsEqual([dot, dot]) {
                depth -= 1
                climbs = true
                if depth < 0 { return .failure("path leaves the destination") }
            } else {
                depth += 1
            }
        }
        if climbs { return .failure("path has a \"..\" component") }
        let path = RelativePath(bytes: Array(bytes))
        guard path.isContained else { return .failure("path has an empty or \".\" component") }
        guard String(validating: path.bytes, as: UTF8.self) != nil else { return .failure("name is not valid UTF-8") }
        return .path(path)
    }
}

extension RelativePath {
    /// The folders the path passes through, outermost first: `a`, `a/b` for `a/b/c`.
    var ancestors: [RelativePath] {
        var result: [RelativePath] = []
        for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "/") {
            result.append(RelativePath(bytes: Array(bytes[..<index])))
        }
        return result
    }
}
