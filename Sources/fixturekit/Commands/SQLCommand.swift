import Foundation
import FixtureKit

/// `fixturekit sql PATH ['QUERY']`: look at a fixture without touching it.
struct SQLCommand: Command {
    static let path = Argument<String>("path", help: "A fixture folder, an archive or a store's main file.")
    static let query = Argument<String?>("query", help: "SQL to run; without it, sqlite3 on the copy (stdin a terminal) or SQL read from stdin.", completion: .none)
    static let configuration = CommandConfiguration(
        name: "sql",
        abstract: "Run SQL on a verified temporary copy of a fixture, an archive or a store: look without touching.",
        discussion: """
            Opening a fixture with sqlite3 changes it: SQLite checkpoints a raw fixture and deletes its
            -wal, and leaves -wal and -shm beside a WAL-mode one, which verify then reports. sql works on
            a copy instead: a fixture folder is copied and the copy verified, an archive is unpacked and
            verified, a store is copied through SQLite's backup API. Rows are printed as sqlite3 prints
            them (columns separated by |, NULL as nothing); --json prints one array of row objects.
            Without QUERY, an interactive sqlite3 runs on the copy when stdin is a terminal; otherwise
            the SQL is read from stdin. Changes go to the copy, which is removed at the end.
            Exit status: 0 done, 1 the fixture or archive does not verify, 2 it cannot be read or the SQL fails.
            """,
        arguments: [path.erased, query.erased],
        options: [Shared.json.erased])

    var path: String
    var query: String?
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        path = try parsed.get(Self.path)
        query = try parsed.get(Self.query)
        json = parsed.get(Shared.json)
    }

    func run(_ console: Console) throws -> ExitCode {
        var sql = query
        if sql == nil {
            if console.isInteractive && !json {
                console.info("sql: \(path): sqlite3 on a temporary copy; changes are thrown away at the end")
                return try StoreQuery.interactive(on: path) == 0 ? .success : .couldNotWork
            }
            sql = console.readStandardInput()
        }
        let results = try StoreQuery.run(sql ?? "", on: path, progress: console.work)
        console.output(json ? QueryText.json(results) : QueryText.list(results), terminated: false)
        return .success
    }
}

/// Rows as `sqlite3` prints them.
enum QueryText {
    /// sqlite3's default list mode: columns separated by `|`, NULL as nothing, one row a line.
    static func list(_ results: [QueryResult]) -> String {
        var text = ""
        for result in results {
            for row in result.rows {
                text += row.map(listValue).joined(separator: "|") + "\n"
            }
        }
        return text
    }

    private static func listValue(_ value: QueryValue) -> String {
        switch value {
        case .null: ""
        case .integer(let number): String(number)
        case .real(_, let text): text
        case .text(let text): text
        case .blob(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    /// One JSON array of every row, each an object whose keys are in the columns'
    /// order (as `sqlite3 -json` writes them); blobs as lowercase hex.
    static func json(_ results: [QueryResult]) -> String {
        let strings = CanonicalJSON.Strings()
        var rows: [String] = []
        for result in results {
            let columns = result.columns.map { quoted($0, strings) }
            for row in result.rows {
                let members = zip(columns, row).map { column, value in column + ":" + jsonValue(value, strings) }
                rows.append("{" + members.joined(separator: ",") + "}")
            }
        }
        return "[" + rows.joined(separator: ",\n") + "]\n"
    }

    private static func jsonValue(_ value: QueryValue, _ strings: CanonicalJSON.Strings) -> String {
        switch value {
        case .null: "null"
        case .integer(let number): String(number)
        case .real(let number, let text): number.isFinite ? text : "null"
        case .text(let text): quoted(text, strings)
        case .blob(let bytes): quoted(bytes.map { String(format: "%02x", $0) }.joined(), strings)
        }
    }

    /// A JSON string as Foundation's encoder writes it (``CanonicalJSON/Strings``),
    /// but for three characters that `sql --json` has always written as `\u`
    /// escapes (a test pins them): U+0008, U+000C and U+007F, which the encoder
    /// writes as `\b`, `\f` and as it is. Only a string that holds one of them is
    /// rewritten, escape by escape (`\\b` stays a backslash and a `b`).
    static func quoted(_ text: String, _ strings: CanonicalJSON.Strings = CanonicalJSON.Strings()) -> String {
        let json = strings.quoted(text)
        guard text.unicodeScalars.contains(where: { $0 == "\u{8}" || $0 == "\u{C}" || $0 == "\u{7F}" }) else { return json }
        var result = ""
        var afterBackslash = false
        for scalar in json.unicodeScalars {
            if afterBackslash {
                afterBackslash = false
                switch scalar {
                case "b": result += "u0008"
                case "f": result += "u000c"
                default: result.unicodeScalars.append(scalar)
                }
            } else if scalar == "\u{7F}" {
                result += "\\u007f"
            } else {
                afterBackslash = scalar == "\\"
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
