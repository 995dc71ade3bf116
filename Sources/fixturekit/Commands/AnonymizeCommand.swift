import FixtureKit
import Foundation

/// `fixturekit anonymize PATH --rules FILE`: rewrites personal data, then proves no original is left.
struct AnonymizeCommand: Command {
    static let path = Argument<String>("path", help: "A store's main file or a fixture folder.")
    static let rules = Option<String>.required("--rules", value: "FILE", help: "The rules file.", completion: .file)
    static let output = Option<String?>("--output", "-o", value: "FILE", help: "Where a store's anonymized copy goes (required for a store).", completion: .file)
    static let keepFailed = Option<String?>("--keep-failed", value: "DIR", help: "Keep an output the leak scan rejects in DIR (mode 0600), for inspection.", completion: .folder)
    static let force = Flag("--force", help: "Replace an existing --output file; rewrite a fixture that fixturekit.lock locks, its archives and its lines.")
    static let configuration = CommandConfiguration(
        name: "anonymize",
        abstract: "Rewrite the columns the rules name, and prove no replaced value is left in the bytes.",
        discussion: """
            PATH is a store (written anonymized to --output FILE, never in place) or a fixture folder
            (rewritten through a staging copy, manifest.json and SHA256SUMS included, and replaced
            whole, with the archives of its version rebuilt and its lock lines rewritten in one
            step). The secret key is read from the environment variable the rules name (keyEnv,
            default FIXTUREKIT_ANON_KEY). The output is one checkpointed file without sidecars, in WAL
            mode when the store was. The leak scan then searches every byte of it, and every value of
            the tables SQLite splits over pages, for every replaced value: a short one where it stands
            whole (a cell, a word, an index key), a longer one anywhere, every run of 32 bytes of a
            long one. A hit exits 1, named by table, column, row and the bytes around it, or by offset
            and page. Rewritten values keep what SQLite compares: equal and unequal under NOCASE,
            RTRIM, lower() and trim(), NULL and '', storage classes, lengths. A data profile of the
            columns (counts only), measured before and after and written into the manifest, exits 1
            naming the column when a property the strategy keeps changed.
            """,
        arguments: [path.erased],
        options: [rules.erased, output.erased, force.erased, keepFailed.erased, Shared.json.erased]
    )

    var path: String
    var rules: String
    var output: String?
    var force: Bool
    var keepFailed: String?
    var json: Bool

    init(_ parsed: ParsedArguments) throws(UsageError) {
        path = try parsed.get(Self.path)
        rules = try parsed.get(Self.rules)
        output = try parsed.get(Self.output)
        force = parsed.get(Self.force)
        keepFailed = try parsed.get(Self.keepFailed)
        json = parsed.get(Shared.json)
    }

    /// A fixture folder is rewritten in place; a store needs somewhere else to go.
    func validate() throws(UsageError) {
        if FixtureLocator.isFolder(path) {
            guard output == nil else { throw UsageError("'--output' is for a store: a fixture folder is rewritten in place") }
        } else {
            guard output != nil else { throw UsageError("missing required option '--output <FILE>' for a store (it is never rewritten in place)") }
        }
    }

    func run(_ console: Console) throws -> ExitCode {
        let report: AnonymizationReport
        do {
            if let output {
                report = try Anonymizer.anonymizeStore(path, output: output, rulesPath: rules, environment: console.environment, force: force, keepFailed: keepFailed, progress: console.work)
            } else {
                report = try Anonymizer.anonymizeFixture(path, rulesPath: rules, environment: console.environment, force: force, keepFailed: keepFailed, progress: console.work)
            }
        } catch {
            // A leak: every hit on stderr, the whole report on stdout with --json.
            if let failed = error.report.flatMap({ try? JSONDecoder().decode(AnonymizationReport.self, from: Data($0)) }) {
                for line in AnonymizationText.lines(failed) { console.message(line) }
                if json { console.output(Formatting.json(failed)) }
            }
            throw error
        }
        for line in AnonymizationText.lines(report) { console.info(line) }
        for archive in report.archives ?? [] {
            console.message(archive.sha256 == nil
                ? "\(archive.archive): removed: pack cannot write its format again (pack the fixture to archive it anew)"
                : "\(archive.archive): rebuilt from the anonymized fixture")
        }
        for line in LockText.report(report.lock ?? [], lock: LockText.lockPath(besideFixture: path)) { console.message(line) }
        if json { console.output(Formatting.json(report)) }
        return .success
    }
}

/// The human report of `anonymize`.
enum AnonymizationText {
    static func lines(_ report: AnonymizationReport) -> [String] {
        let replaced = report.columns.reduce(0) { $0 + $1.rowsChanged }
        var lines = ["\(report.output): anonymized \(report.input) with \(report.rules): \(Formatting.count(report.columns.count, "column")) rewritten, \(Formatting.count(replaced, "value")) replaced"]
        let width = report.columns.map { "\($0.table).\($0.column)".count }.max() ?? 0
        for column in report.columns {
            let name = "\(column.table).\(column.column)".padding(toLength: width, withPad: " ", startingAt: 0)
            lines.append("  \(name)  \(column.strategy.padding(toLength: 10, withPad: " ", startingAt: 0))  \(Formatting.count(column.rowsChanged, "row")) changed")
        }
        if !report.rebuiltIndexes.isEmpty { lines.append("  FTS indexes rebuilt: \(report.rebuiltIndexes.joined(separator: ", "))") }
        if !report.absentColumns.isEmpty { lines.append("note: the store has no \(report.absentColumns.joined(separator: ", ")): those rules did nothing") }
        let scan = report.leakScan
        var searched = "leak scan: \(Formatting.count(scan.valuesSearched, "replaced value")) searched in \(Formatting.count(scan.files.count, "file")) (\(Formatting.bytes(scan.bytes)))"
        if !scan.tablesRead.isEmpty { searched += " and \(Formatting.count(scan.tablesRead.count, "table")) read whole" }
        if scan.valuesSearched > 0 { searched += ", those under \(scan.wholeValueBytes) bytes as whole values" }
        guard scan.hitCount > 0 else {
            var notes: [String] = []
            if scan.embedded > 0 { notes.append("\(Formatting.count(scan.embedded, "match", "matches")) of a short value inside a longer word or number") }
            if scan.spanning > 0 { notes.append("\(Formatting.count(scan.spanning, "match", "matches")) across two values") }
            return lines + [searched + ": none found" + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ": no leak)")]
        }
        lines.append(searched + ": \(Formatting.count(scan.hitCount, "hit")) found")
        for hit in scan.hits { lines.append("  " + hit.summary) }
        if scan.hitCount > scan.hits.count { lines.append("  and \(scan.hitCount - scan.hits.count) more") }
        return lines
    }
}
