import FixtureKitSystem
import FixtureKitModels

extension MigrationReport {
    /// The report as JUnit XML: one testsuite per source version, one testcase
    /// per path and check (with the check's `time`), failure messages that say
    /// what changed, and each suite's ``PathResult/unchecked`` as lines of its
    /// `system-out`.
    ///
    /// The files of several shards together hold every testcase of the matrix once.
    public func junitXML() -> String {
        let bySource = Dictionary(grouping: paths, by: \.source)
        let sources = bySource.keys.sorted { (Version($0).map { [$0] } ?? []).lexicographicallyPrecedes(Version($1).map { [$0] } ?? []) }
        let total = paths.reduce(0) { $0 + $1.checks.count }
        // A path that could not run for want of the machine is an error, not a failure.
        func failed(_ paths: [PathResult], couldNotRun: Bool) -> Int {
            paths.filter { ($0.couldNotRun == true) == couldNotRun }.reduce(0) { $0 + $1.checks.filter { !$0.passed }.count }
        }
        func errors(_ count: Int) -> String { count > 0 ? " errors=\"\(count)\"" : "" }
        let failures = failed(paths, couldNotRun: false)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"fixturekit migrate\" tests=\"\(total)\" failures=\"\(failures)\"\(errors(failed(paths, couldNotRun: true)))>\n"
        for source in sources {
            let results = bySource[source] ?? []
            let checks = results.flatMap { result in result.checks.map { (result, $0) } }
            let time = results.reduce(0) { $0 + $1.seconds }
            xml += "  <testsuite name=\"\(Markup.xml.escape(source))\" tests=\"\(checks.count)\" failures=\"\(failed(results, couldNotRun: false))\"\(errors(failed(results, couldNotRun: true))) time=\"\(Self.seconds(time))\">\n"
            for (result, check) in checks {
                let name = Markup.xml.escape("\(result.kind == .hop ? "hop " : "")\(result.id): \(check.name)")
                let time = check.seconds.map { " time=\"\(Self.seconds($0))\"" } ?? ""
                let head = "    <testcase classname=\"\(Markup.xml.escape("migrate.\(source)"))\" name=\"\(name)\"\(time)"
                // A stage's settings and warnings (MigrationReport+Connection.swift).
                let (properties, output) = Self.junitDetails(check)
                if check.passed {
                    xml += properties.isEmpty && output.isEmpty ? head + "/>\n" : head + ">\n" + properties + output + "    </testcase>\n"
                } else {
                    let message = check.message ?? "failed"
                    var body = message
                    if let statement = check.statement { body += "\nstatement: \(statement)" }
                    let element = result.couldNotRun == true ? "error" : "failure"
                    xml += head + ">\n" + properties + "      <\(element) message=\"\(Markup.xml.escape(message.split(separator: "\n").first.map(String.init) ?? message))\">\(Markup.xml.escape(body))</\(element)>\n" + output + "    </testcase>\n"
                }
            }
            // What the value checks could not see: lines for a person, after the testcases.
            let unchecked = results.flatMap { result in (result.unchecked ?? []).map { "\(result.kind == .hop ? "hop " : "")\(result.id): unchecked: \($0.line)" } }
            if !unchecked.isEmpty { xml += "    <system-out>\(Markup.xml.escape(unchecked.joined(separator: "\n")))</system-out>\n" }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    private static func seconds(_ value: Double) -> String {
        let milliseconds = Int((value * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
