import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

extension ConnectionSettings {
    /// `foreign_keys OFF, ..., dqs_ddl ON, TZ=UTC` for a stage fixturekit runs on
    /// its own connection (or a Swift stage is given); `the program's own
    /// connection, LC_ALL=C.UTF-8, TZ=UTC` for a program.
    public var summary: String {
        let sqlite = sqliteSummary
        let environment = environmentSummary
        let head = sqlite.isEmpty ? "the program's own connection" : sqlite
        return environment.isEmpty ? head : head + ", " + environment
    }
}

extension MigrationReport {
    /// Each stage the paths ran, once, with the settings it ran with, in the
    /// order the paths ran them: every path of the matrix ran its stages so.
    public var stageConnections: [(stage: String, connection: ConnectionSettings)] {
        var seen: [(stage: CheckKind, connection: ConnectionSettings)] = []
        for check in paths.flatMap(\.checks) {
            guard let connection = check.connection, !seen.contains(where: { $0.stage == check.kind && $0.connection == connection }) else { continue }
            seen.append((check.kind, connection))
        }
        return seen.map { ($0.stage.name, $0.connection) }
    }

    /// The HTML page's section on the stages' connections, and the warnings of
    /// each path's stages (statements that did nothing where they stand).
    func connectionsHTML() -> String {
        let stages = stageConnections
        guard !stages.isEmpty else { return "" }
        var html = "<section aria-labelledby=\"connections\">\n<h2 id=\"connections\">Stages' connections</h2>\n"
        html += "<p class=\"legend\">The settings each stage ran with, in every path that ran it.</p>\n<ul class=\"diff\">\n"
        for (stage, connection) in stages {
            html += "<li><code class=\"name\">\(Markup.html.escape(stage))</code>: <code>\(Markup.html.escape(connection.summary))</code></li>\n"
        }
        html += "</ul>\n"
        let warned = paths.filter { $0.checks.contains { $0.warnings != nil } }
        if !warned.isEmpty {
            html += "<h3 id=\"warnings\">Warnings</h3>\n<ul class=\"findings\">\n"
            for path in warned {
                for check in path.checks {
                    for warning in check.warnings ?? [] {
                        html += "<li><code class=\"name\">\(Markup.html.escape((path.kind == .hop ? "hop " : "") + path.id))</code> <span>\(Markup.html.escape(check.name)): \(Markup.html.escape(warning))</span></li>\n"
                    }
                }
            }
            html += "</ul>\n"
        }
        html += "</section>\n"
        return html
    }

    /// A stage's testcase's `<properties>` (the settings it ran with, `connection.foreign_keys`
    /// OFF, ..., `connection.TZ` UTC) and `<system-out>` (its warnings), indented for the JUnit file.
    static func junitDetails(_ check: CheckResult) -> (properties: String, output: String) {
        var properties = ""
        if let connection = check.connection {
            let settings = ConnectionFlag.allCases.compactMap { flag in connection[flag].map { (flag.rawValue, $0 ? "ON" : "OFF") } }
            properties += "      <properties>\n"
            for (name, value) in settings + (connection.environment ?? [:]).sorted(by: { $0.key < $1.key }) {
                properties += "        <property name=\"connection.\(Markup.xml.escape(name))\" value=\"\(Markup.xml.escape(value))\"/>\n"
            }
            properties += "      </properties>\n"
        }
        let output = check.warnings.map { "      <system-out>\(Markup.xml.escape($0.joined(separator: "\n")))</system-out>\n" } ?? ""
        return (properties, output)
    }
}
