import FixtureKit

/// `fixturekit list FILE`: the entries of an archive, as their headers state them.
struct ListCommand: Command {
    static let archive = Argument<String>("archive", help: "The archive; - reads it from standard input.")
    static let configuration = CommandConfiguration(
        name: "list",
        abstract: "List the entries of an archive, without checking or extracting them.",
        discussion: """
            One line per entry: type and mode, size, name (a link with its target), as tar -tv shows them.
            Nothing is checked: `fixturekit verify FILE` checks. Exit status: 0 listed, 2 unreadable archive.
            """,
        arguments: [archive.erased],
        options: [Shared.json.erased])

    var archive: String
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        archive = try parsed.get(Self.archive)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        let listing = try FixtureArchive.list(archive) { entry in
            if !json { console.info(Self.line(entry)) }
        }
        if json {
            console.output(Formatting.json(listing))
        } else {
            let entries = Formatting.count(listing.entries.count, "entry", "entries")
            console.info("\(archive): \(entries), \(Formatting.bytes(listing.expandedSize)) (\(listing.compression), \(Formatting.bytes(listing.compressedSize)))")
        }
        return .success
    }

    /// `-rw-r--r--        213  SHA256SUMS`.
    static func line(_ entry: ListedEntry) -> String {
        let type: Character = switch entry.kind {
        case .file: "-"
        case .folder: "d"
        case .symbolicLink: "l"
        case .hardLink: "h"
        case .characterDevice: "c"
        case .blockDevice: "b"
        case .fifo: "p"
        case .socket: "s"
        case .unknown: "?"
        }
        let bits = Array("rwxrwxrwx")
        let mode = String(type) + String((0..<9).map { entry.mode & (0o400 >> UInt32($0)) != 0 ? bits[$0] : "-" })
        let size = String(entry.size)
        var line = mode + String(repeating: " ", count: max(1, 13 - size.count)) + size + "  " + entry.name.escapingControlCharacters()
        if let target = entry.target {
            line += (entry.kind == .hardLink ? " link to " : " -> ") + target.escapingControlCharacters()
        }
        return line
    }
}
