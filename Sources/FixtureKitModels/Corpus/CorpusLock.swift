import FixtureKitSystem
import FixtureKitCrypto

/// `fixturekit.lock`: the corpus' shipped history, beside `fixturekit.json`.
///
/// One fact per line, lines sorted bytewise, so that a change reads as a one-line
/// diff in review:
///
/// ```
/// # fixturekit.lock: shipped history, written by fixturekit. Review every change to it.
/// archive 1.0.0 App-1.0.0.tar.zst <64 hex>
/// content 1.0.0 <64 hex>
/// stage 2.0.0 migrations/1.0.0-2.0.0.sql <64 hex>
/// sums 1.0.0 <64 hex>
/// ```
///
/// - `sums V H`: the SHA-256 of `V/SHA256SUMS`, which pins every file of the fixture
///   (of the `SHA256SUMS` inside V's archive when the corpus holds only the archive);
/// - `content V H`: the content hash of V's store (``Database/contentHash()``);
/// - `archive V NAME H`: the archive of V, a file of the corpus, and its SHA-256;
/// - `stage V PATH H`: a stage file that shipped with V (a stage whose `to` is V),
///   its path as `fixturekit.json` names it, relative to the corpus;
/// - `declaration V FROM H`: the declaration of the stage from FROM to V that
///   shipped with V (``StageDeclaration``): what it runs and how.
///
/// A path holding `\`, LF or CR is written as SHA256SUMS writes it: the line
/// starts with `\` and those characters are escaped (`\\`, `\n`, `\r`).
public struct CorpusLock: Sendable, Equatable {
    package static let fileName = "fixturekit.lock"
    /// The first line.
    package static let header = "# fixturekit.lock: shipped history, written by fixturekit. Review every change to it."

    public enum Kind: String, Sendable, Codable, CaseIterable {
        case archive, content, declaration, stage, sums
    }

    /// What one line is about: everything but its digest.
    public struct Fact: Hashable, Sendable, Codable, CustomStringConvertible {
        public package(set) var kind: Kind
        public package(set) var version: String
        /// The archive's or the stage file's path, or the version a declared stage
        /// starts from; `nil` for `sums` and `content`.
        public package(set) var path: String?

        package init(_ kind: Kind, _ version: String, _ path: String? = nil) {
            self.kind = kind
            self.version = version
            self.path = path
        }

        /// `sums 2.0.0`, `stage 2.0.0 migrations/1.0.0-2.0.0.sql`: the line without its digest.
        public var description: String {
            [kind.rawValue, version, path?.escapingControlCharacters()].compactMap { $0 }.joined(separator: " ")
        }
    }

    /// Every fact and its digest.
    public package(set) var digests: [Fact: SHA256Digest]

    package init(digests: [Fact: SHA256Digest] = [:]) {
        self.digests = digests
    }

    /// The versions that have at least one line.
    public var versions: Set<String> { Set(digests.keys.map(\.version)) }

    // MARK: - Writing

    /// The file's bytes: the header, then one line per fact, sorted bytewise, each ending in LF.
    public func rendered() -> [UInt8] {
        let lines = digests.map { Self.line($0.key, $0.value) }.sorted { $0.lexicographicallyPrecedes($1) }
        var output = Array(Self.header.utf8) + [Self.lineFeed]
        for line in lines { output += line + [Self.lineFeed] }
        return output
    }

    /// One line, without its line end.
    static func line(_ fact: Fact, _ digest: SHA256Digest) -> [UInt8] {
        var line = Array(fact.kind.rawValue.utf8) + [Self.space] + Array(fact.version.utf8) + [Self.space]
        if let path = fact.path {
            if let escaped = SHA256Sums.escape(Array(path.utf8)) {
                line = [SHA256Sums.backslash] + line + escaped
            } else {
                line += Array(path.utf8)
            }
            line.append(Self.space)
        }
        return line + Array(digest.hex.utf8)
    }

    // MARK: - Reading

    /// Reads the lock's bytes; `path` names it in errors.
    /// - Throws: ``FormatError`` (exit status 2) naming the first line that is
    ///   not a fact of the format, or a fact given twice.
    public init(parsing bytes: [UInt8], path: String) throws(FormatError) {
        func fail(_ number: Int, _ why: String) -> FormatError {
            FormatError(.lock, file: path, line: number, expected: why, remedy: .rewriteLock)
        }
        var digests: [Fact: SHA256Digest] = [:]
        var firstLine: [Fact: Int] = [:]
        var number = 0
        for raw in bytes.split(separator: Self.lineFeed, omittingEmptySubsequences: false) {
            number += 1
            if raw.last == Self.carriageReturn { throw fail(number, "ends with CR: the lock's lines end with LF alone") }
            if raw.isEmpty || raw.first == UInt8(ascii: "#") { continue }
            let (fact, digest): (Fact, SHA256Digest)
            switch Self.parse(raw) {
            case .success(let parsed): (fact, digest) = parsed
            case .failure(let why): throw fail(number, why.message)
            }
            if let first = firstLine[fact] { throw fail(number, "\(fact) is given again (first on line \(first))") }
            firstLine[fact] = number
            digests[fact] = digest
        }
        self.init(digests: digests)
    }

    private struct LineError: Error { var message: String }

    private static func parse(_ raw: ArraySlice<UInt8>) -> Result<(Fact, SHA256Digest), LineError> {
        func fail(_ why: String) -> Result<(Fact, SHA256Digest), LineError> { .failure(LineError(message: why)) }
        var rest = raw
        let escaped = rest.first == SHA256Sums.backslash
        if escaped { rest = rest.dropFirst() }
        guard let kindEnd = rest.firstIndex(of: space), let kind = Kind(rawValue: String(decoding: rest[..<kindEnd], as: UTF8.self)) else {
            return fail("not a fact of fixturekit.lock (archive, content, declaration, stage or sums, a version, and a SHA-256)")
        }
        rest = rest[(kindEnd + 1)...]
        guard let versionEnd = rest.firstIndex(of: space) else { return fail("no SHA-256 after the version") }
        let label = String(decoding: rest[..<versionEnd], as: UTF8.self)
        guard Version(label) != nil, Array(label.utf8).elementsEqual(rest[..<versionEnd]) else {
            return fail(Version.whyNot(String(decoding: rest[..<versionEnd], as: UTF8.self)))
        }
        rest = rest[(versionEnd + 1)...]
        var path: String?
        if kind == .archive || kind == .stage || kind == .declaration {
            guard let digestStart = rest.lastIndex(of: space) else { return fail("\(kind.rawValue) needs a path and a SHA-256") }
            var name = Array(rest[..<digestStart])
            rest = rest[(digestStart + 1)...]
            if escaped {
                guard let unescaped = unescape(name) else { return fail("invalid escape in the path (only \\\\, \\n and \\r are allowed)") }
                name = unescaped
            }
            guard !name.isEmpty, !name.contains(0), let text = String(validating: name, as: UTF8.self) else {
                return fail("the path is empty, holds a NUL byte or is not UTF-8")
            }
            if kind == .archive && !text.isSafeFileName { return fail("an archive is a file of the corpus, not \(RelativePath(text).quoted)") }
            if kind == .declaration && Version(text) == nil { return fail("a declaration names the version its stage starts from, not \(RelativePath(text).quoted)") }
            path = text
        } else if escaped {
            return fail("\(kind.rawValue) has no path to escape")
        }
        guard rest.count == 64, rest.allSatisfy({ hexDigits.contains($0) }), let digest = SHA256Digest(hex: rest) else {
            return fail("not a SHA-256 (64 lower-case hexadecimal digits) at the end")
        }
        return .success((Fact(kind, label, path), digest))
    }

    private static func unescape(_ name: [UInt8]) -> [UInt8]? {
        var result: [UInt8] = []
        var iterator = name.makeIterator()
        while let byte = iterator.next() {
            guard byte == SHA256Sums.backslash else {
                result.append(byte)
                continue
            }
            switch iterator.next() {
            case SHA256Sums.backslash: result.append(SHA256Sums.backslash)
            case UInt8(ascii: "n"): result.append(lineFeed)
            case UInt8(ascii: "r"): result.append(carriageReturn)
            default: return nil
            }
        }
        return result
    }

    /// The lock of `corpus`, or `nil` when it has none.
    /// - Throws: ``FormatError`` (exit status 2) when it cannot be read (its
    ///   ``FormatError/cause`` a ``FileSystemError``), is not a regular file, or does not parse.
    public static func load(corpus: String) throws(FormatError) -> CorpusLock? {
        let path = corpus.appendingPath(fileName)
        let bytes: [UInt8]
        do {
            guard let info = try POSIX.lstatIfPresent(path) else { return nil }
            // A FIFO would block the read, a link could name any file: refused.
            guard info.kind == .regular else {
                throw FormatError(.lock, file: path, expected: FileKind.describe(info.mode), remedy: .rewriteLock)
            }
            bytes = try POSIX.readFile(path, limit: 16 << 20)
        } catch let error as FormatError {
            throw error
        } catch let error as FileSystemError {
            throw FormatError(.lock, file: path, expected: error.reason, cause: error)
        } catch {
            throw FormatError(.lock, file: path, expected: "\(error)", cause: error)
        }
        return try CorpusLock(parsing: bytes, path: path)
    }

    private static let space = UInt8(ascii: " ")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")
    private static let hexDigits = Set("0123456789abcdef".utf8)
}
