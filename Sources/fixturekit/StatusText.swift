import Foundation
import FixtureKit

/// The human report of `status`: a table of the versions, then the largest
/// tables, the archives' digests, the chains of stages and the problems.
enum StatusText {
    static func lines(_ status: CorpusStatus) -> [StyledText] {
        let supported = status.versions.filter { $0.support == .supported }.count
        var lines: [StyledText] = ["status: \(status.configuration): \(status.store), current \(status.current), \(supported) supported"]

        let header = ["VERSION", "SUPPORT", "FIXTURE", "SUMS", "ARCHIVE", "CAPTURE", "ANONYMIZED", "MODEL", "ROWS"]
        let rows = status.versions.map { cells($0, store: status.store) }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.text.count) }
        }
        func render(_ row: [Cell]) -> StyledText {
            var text = StyledText(plain: "")
            for (index, cell) in row.enumerated() {
                // Numbers to the right, the last column unpadded; the colour on the word alone.
                let padding = String(repeating: " ", count: widths[index] - cell.text.count)
                if index > 0 { text = text + "  " }
                text = index == row.count - 1
                    ? text + "\(padding)\(cell.text, style: cell.style)"
                    : text + "\(cell.text, style: cell.style)\(padding)"
            }
            return text
        }
        lines.append(render(header.map { Cell($0) }))
        lines += rows.map(render)

        let width = status.versions.map(\.version.count).max() ?? 0
        func label(_ version: String) -> String { "  " + version.padding(toLength: width, withPad: " ", startingAt: 0) + "  " }
        let withTables = status.versions.filter { $0.facts != nil }
        if !withTables.isEmpty {
            lines.append("largest tables:")
            for row in withTables {
                let tables = row.facts?.tables ?? []
                var text = tables.prefix(3).map { "\($0.name) \($0.rows)" }.joined(separator: ", ")
                if tables.count > 3 { text += ", and \(Formatting.count(tables.count - 3, "more table"))" }
                lines.append(StyledText(plain: label(row.version) + (tables.isEmpty ? "no tables" : text)))
            }
        }
        // The fixtures whose tables have no row: no path from them checks a value of those.
        let leavingEmpty = status.versions.filter { !($0.facts?.emptyTables.isEmpty ?? true) }
        if !leavingEmpty.isEmpty {
            lines.append("empty tables (no path from the version checks a value of theirs):")
            for row in leavingEmpty { lines.append(StyledText(plain: label(row.version) + (row.facts?.emptyTables ?? []).joined(separator: ", "))) }
        }
        let archives = status.versions.compactMap(\.archive)
        if !archives.isEmpty {
            lines.append("archives:")
            for archive in archives {
                let name = archive.path.split(separator: "/").last.map(String.init) ?? archive.path
                lines.append("  \(archive.sha256 ?? String(repeating: "?", count: 64))  \(name)")
            }
        }
        let migrated = status.versions.filter { $0.chain != nil || $0.chainGap != nil }
        if !migrated.isEmpty {
            lines.append("chains to \(status.current):")
            for row in migrated {
                let chain = row.chain.map { $0.count == 1 ? "current" : $0.joined(separator: " -> ") }
                lines.append(StyledText(plain: label(row.version) + (chain ?? "none: " + (row.chainGap ?? ""))))
            }
        }
        for problem in status.problems { lines.append(StyledText(plain: "problem: " + problem.message)) }
        for warning in status.warnings { lines.append(StyledText(plain: "warning: " + warning)) }
        let versions = Formatting.count(status.versions.count, "version")
        let warnings = status.warnings.isEmpty ? "" : ", " + Formatting.count(status.warnings.count, "warning")
        lines.append(StyledText(plain: "status: \(versions), " + (status.passed ? "no problems" : Formatting.count(status.problems.count, "problem")) + warnings))
        return lines
    }

    /// A cell's text and, when it says something is fine or wrong, its colour.
    struct Cell {
        var text: String
        var style: Console.Style?
        init(_ text: String, _ style: Console.Style? = nil) {
            self.text = text
            self.style = style
        }
    }

    private static func cells(_ row: VersionStatus, store: String) -> [Cell] {
        let fixture: Cell
        let sums: Cell
        switch (row.fixture, row.archive) {
        case let (folder?, _):
            fixture = Cell("folder")
            sums = folder.verified ? Cell("OK", .ok) : Cell("FAILED", .failed)
        case let (nil, archive?):
            fixture = Cell("archive")
            sums = archive.verified ? Cell("OK", .ok) : Cell("FAILED", .failed)
        case (nil, nil):
            fixture = Cell("missing", .failed)
            sums = Cell("-")
        }
        let archive: Cell
        switch row.archive {
        case nil: archive = Cell("-")
        case let status? where !status.verified: archive = Cell("FAILED", .failed)
        case let status? where status.sameAsFolder == false: archive = Cell("differs", .failed)
        default: archive = Cell("OK", .ok)
        }
        var capture = "-"
        if let facts = row.facts {
            capture = facts.captureMode
            if !facts.sidecars.isEmpty {
                // `App.sqlite-wal` reads as `-wal` beside its store.
                let names = facts.sidecars.map { $0.hasPrefix(store) ? String($0.dropFirst(store.count)) : $0 }
                capture += " (" + names.joined(separator: ", ") + ")"
            }
        }
        return [
            Cell(row.version),
            Cell(row.support.rawValue, row.support == .unlisted ? .failed : nil),
            fixture, sums, archive,
            Cell(capture),
            Cell(row.facts?.anonymization.label ?? "-"),
            Cell(row.facts?.model.label ?? "-"),
            Cell(row.facts.map { String($0.rows) } ?? "-"),
        ]
    }
}
