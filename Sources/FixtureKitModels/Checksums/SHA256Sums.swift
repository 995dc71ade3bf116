import FixtureKitSystem
import FixtureKitCrypto

/// One line of a SHA256SUMS file: a file and its digest.
public struct SHA256SumsEntry: Sendable, Equatable {
    public package(set) var path: RelativePath
    public package(set) var digest: SHA256Digest
    /// The line it was read from (1-based); 0 for entries built in code.
    public package(set) var line: Int

    package init(path: RelativePath, digest: SHA256Digest, line: Int = 0) {
        self.path = path
        self.digest = digest
        self.line = line
    }
}

/// A line of a SHA256SUMS file that is not a checksum line.
public struct SHA256SumsLineProblem: Sendable, Equatable, CustomStringConvertible {
    /// 1-based, as editors count.
    public package(set) var line: Int
    public package(set) var reason: String

    public var description: String { "line \(line): \(reason)" }
}

/// The SHA256SUMS format of GNU coreutils' `sha256sum`, both ways.
///
/// Writing gives exactly what `sha256sum` prints for the same files, sorted
/// bytewise: `<64 lowercase hex><space><space><path>`; a path holding `\`, LF or
/// CR is escaped (`\\`, `\n`, `\r`) and its line starts with `\`.
///
/// Reading accepts what `sha256sum -c` accepts: the `*` binary flag, the single
/// space of BSD `sha256 -r`, `#` comments, empty lines, CRLF line ends, upper-case
/// digits, the tagged form `SHA256 (path) = digest` of `sha256sum --tag` and
/// `shasum --tag`, and names in the forms `find . -exec sha256sum {} +` writes
/// (`./a`, `./sub//b`: the file `sha256sum -c` then checks, ``plainPath(_:)``).
public struct SHA256Sums: Sendable, Equatable {
    /// The file's name inside a fixture.
    package static let fileName = "SHA256SUMS"

    public package(set) var entries: [SHA256SumsEntry]
    /// Lines that could not be read, in order.
    public package(set) var problems: [SHA256SumsLineProblem]

    package init(entries: [SHA256SumsEntry], problems: [SHA256SumsLineProblem] = []) {
        self.entries = entries
        self.problems = problems
    }

    // MARK: - Writing

    /// The file's bytes: one line per entry, sorted bytewise by path.
    public func rendered() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(entries.count * 80)
        for entry in entries.sorted(by: { $0.path < $1.path }) {
            let escaped = Self.escape(entry.path.bytes)
            if escaped != nil { output.append(UInt8(ascii: "\\")) }
            output.append(contentsOf: entry.digest.hex.utf8)
            output.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: " ")])
            output.append(contentsOf: escaped ?? entry.path.bytes)
            output.append(UInt8(ascii: "\n"))
        }
        return output
    }

    /// One line as `sha256sum` prints it for a file named `name`, without its line
    /// end: `<64 hex>  <name>`, escaped the coreutils way when the name needs it.
    package static func line(digest: SHA256Digest, name: String) -> String {
        let escaped = escape(Array(name.utf8))
        return (escaped == nil ? "" : "\\") + digest.hex + "  " + String(decoding: escaped ?? Array(name.utf8), as: UTF8.self)
    }

    /// The coreutils escaping of a name, or `nil` when it needs none.
    static func escape(_ name: [UInt8]) -> [UInt8]? {
        guard name.contains(where: { $0 == backslash || $0 == lineFeed || $0 == carriageReturn }) else { return nil }
        var escaped: [UInt8] = []
        escaped.reserveCapacity(name.count + 4)
        for byte in name {
            switch byte {
            case backslash: escaped += [backslash, backslash]
            case lineFeed: escaped += [backslash, UInt8(ascii: "n")]
            case carriageReturn: escaped += [backslash, UInt8(ascii: "r")]
            default: escaped.append(byte)
            }
        }
        return escaped
    }

    // MARK: - Reading

    /// Reads a SHA256SUMS file; lines it cannot read become ``problems``.
    ///
    /// Besides what `sha256sum -c` rejects, a path that leaves the folder
    /// (absolute, `..`), a path that is not UTF-8 and a path listed twice are
    /// problems: a fixture lists each of its files once, inside it.
    public init(parsing bytes: [UInt8]) {
        var entries: [SHA256SumsEntry] = []
        var problems: [SHA256SumsLineProblem] = []
        var firstLine: [RelativePath: Int] = [:]
        var lineNumber = 0
        for rawLine in bytes.split(separator: Self.lineFeed, omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine[...]
            if line.last == Self.carriageReturn { line = line.dropLast() }
            // A final line feed ends the last line; it does not open another one.
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            switch Self.parseLine(line) {
            case .failure(let reason):
                problems.append(SHA256SumsLineProblem(line: lineNumber, reason: reason))
            case .success(let (name, digest)):
                let path = RelativePath(bytes: Self.plainPath(name))
                if let reason = Self.pathProblem(path, as: name) {
                    problems.append(SHA256SumsLineProblem(line: lineNumber, reason: reason))
                } else if let first = firstLine[path] {
                    problems.append(SHA256SumsLineProblem(line: lineNumber, reason: "\(path.quoted) is listed again (first on line \(first))"))
                } else {
                    firstLine[path] = lineNumber
                    entries.append(SHA256SumsEntry(path: path, digest: digest, line: lineNumber))
                }
            }
        }
        self.init(entries: entries, problems: problems)
    }

    private enum LineResult {
        case success(([UInt8], SHA256Digest))
        case failure(String)
    }

    /// One line without its line end, as coreutils' `split_3` reads it.
    private static func parseLine(_ line: ArraySlice<UInt8>) -> LineResult {
        var rest = line.drop(while: { $0 == space || $0 == tab })
        var escaped = false
        if rest.first == backslash {
            escaped = true
            rest = rest.dropFirst()
        }
        if rest.starts(with: tag) {
            return parseTagged(rest.dropFirst(tag.count), escaped: escaped)
        }
        let hexCount = SHA256Digest.byteCount * 2
        let digits = rest.prefix(while: { $0 != space && $0 != tab })
        guard digits.count == hexCount, let digest = SHA256Digest(hex: digits) else {
            return .failure("not a SHA-256 checksum line (expected 64 hexadecimal digits, two spaces and a file name)")
        }
        rest = rest.dropFirst(hexCount)
        guard let separator = rest.first, separator == space || separator == tab else {
            return .failure("no file name after the checksum")
        }
        rest = rest.dropFirst()
        // ' ' (text) or '*' (binary) mode flag; BSD `sha256 -r` writes none.
        if rest.first == space || rest.first == asterisk, rest.count > 1 { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return .failure("no file name after the checksum") }
        return name(rest, escaped: escaped).map { .success(($0, digest)) } ?? .failure(nameProblem(rest, escaped: escaped))
    }

    /// `(path) = digest` after `SHA256`, as `sha256sum --tag` writes it.
    private static func parseTagged(_ afterTag: ArraySlice<UInt8>, escaped: Bool) -> LineResult {
        var rest = afterTag
        if rest.first == space { rest = rest.dropFirst() }
        guard rest.first == UInt8(ascii: "(") else {
            return .failure("not a SHA-256 checksum line (expected `SHA256 (name) = digest`)")
        }
        rest = rest.dropFirst()
        // BSD tools do not escape names: the name ends at the last ')'.
        guard let close = rest.lastIndex(of: UInt8(ascii: ")")) else {
            return .failure("no closing parenthesis after the file name")
        }
        let rawName = rest[rest.startIndex..<close]
        var after = rest[(close + 1)...].drop(while: { $0 == space || $0 == tab })
        guard after.first == UInt8(ascii: "=") else { return .failure("no `=` after the file name") }
        after = after.dropFirst().drop(while: { $0 == space || $0 == tab })
        guard let digest = SHA256Digest(hex: after) else {
            return .failure("not a SHA-256 digest after `=` (expected 64 hexadecimal digits)")
        }
        guard !rawName.isEmpty else { return .failure("empty file name") }
        return name(rawName, escaped: escaped).map { .success(($0, digest)) } ?? .failure(nameProblem(rawName, escaped: escaped))
    }

    /// The name's bytes, unescaped when the line started with `\`; `nil` when invalid.
    private static func name(_ raw: ArraySlice<UInt8>, escaped: Bool) -> [UInt8]? {
        guard !raw.contains(0) else { return nil }
        guard escaped else { return Array(raw) }
        var result: [UInt8] = []
        result.reserveCapacity(raw.count)
        var iterator = raw.makeIterator()
        while let byte = iterator.next() {
            guard byte == backslash else {
                result.append(byte)
                continue
            }
            switch iterator.next() {
            case backslash: result.append(backslash)
            case UInt8(ascii: "n"): result.append(lineFeed)
            case UInt8(ascii: "r"): result.append(carriageReturn)
            default: return nil
            }
        }
        return result
    }

    private static func nameProblem(_ raw: ArraySlice<UInt8>, escaped: Bool) -> String {
        raw.contains(0) ? "NUL byte in the file name" : "invalid escape in the file name (only \\\\, \\n and \\r are allowed)"
    }

    /// The path `sha256sum -c` opens for `name`, in its plain form: the `.`
    /// components and the empty ones between two `/` (`./a`, `sub/./b`, `sub//b`)
    /// name the same file as without them, and are left out. A leading `/`, a
    /// last component that is empty or `.` (`a/`, `a/.`: a folder, never a file)
    /// and `..` are kept, for ``pathProblem(_:as:)`` to refuse.
    static func plainPath(_ name: [UInt8]) -> [UInt8] {
        let slash = UInt8(ascii: "/")
        guard name.first != slash else { return name }
        let components = name.split(separator: slash, omittingEmptySubsequences: false)
        var kept = components.dropLast().filter { !$0.isEmpty && !$0.elementsEqual([UInt8(ascii: ".")]) }
        if let last = components.last { kept.append(last) }
        return Array(kept.joined(separator: [slash]))
    }

    private static func pathProblem(_ path: RelativePath, as written: [UInt8]) -> String? {
        if String(validating: path.bytes, as: UTF8.self) == nil { return "file name is not valid UTF-8" }
        if !path.isContained { return "\(RelativePath(bytes: written).quoted) is not a path inside the folder" }
        return nil
    }

    private static let tag = Array("SHA256".utf8)
    static let backslash = UInt8(ascii: "\\")
    static let lineFeed = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let asterisk = UInt8(ascii: "*")
}
