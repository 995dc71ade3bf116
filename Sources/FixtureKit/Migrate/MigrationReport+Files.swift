import FixtureKitSystem
import FixtureKitModels

extension MigrationReport {
    /// The forms `migrate` writes its report in, besides its summary.
    public enum Format: Sendable, CaseIterable {
        /// JSON, as `--json` prints it: pretty-printed, keys sorted (``MigrationReport`` is its schema).
        case json
        /// JUnit XML (``junitXML()``), as `--junit FILE` writes it.
        case junit
        /// One self-contained HTML page (``html(configuration:)``), as `--html FILE` writes it.
        case html

        /// `write JUnit report`: what an error writing it says it was doing.
        var writing: String {
            switch self {
            case .json: "write JSON report"
            case .junit: "write JUnit report"
            case .html: "write HTML report"
            }
        }
    }

    /// The report in `format`, ending with a line feed.
    /// - Parameter configuration: the configuration's path, which the HTML page shows.
    public func rendered(_ format: Format, configuration: String? = nil) -> String {
        switch format {
        case .json: String(decoding: CanonicalJSON.file(self), as: UTF8.self)
        case .junit: junitXML()
        case .html: html(configuration: configuration)
        }
    }

    /// Writes the report in `format` to `path` atomically (`path.tmp`, fsync, rename).
    /// ``MigrationRunner/checkReportFile(_:format:)`` checks before the matrix runs that it can be.
    /// - Throws: ``FixtureKitError`` (`write JUnit report: ...`) when it cannot be written.
    public func write(_ format: Format, to path: String, configuration: String? = nil) throws(FixtureKitError) {
        do { try AtomicFile.write(Array(rendered(format, configuration: configuration).utf8), to: path) } catch {
            throw FixtureKitError(what: format.writing, failed: error)
        }
    }
}
