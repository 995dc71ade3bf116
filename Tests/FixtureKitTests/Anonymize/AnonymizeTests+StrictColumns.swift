import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Strict mode names a column of another affinity by what its rows hold.
extension AnonymizeTests {
    @Test func strictModeSaysWhatAColumnOfAnotherAffinityHolds() throws {
        let folder = try TemporaryFolder()
        let store = folder.url("App.sqlite")
        let database = try Database(path: store, options: .init(create: true))
        // Declared types whose affinity is INTEGER, REAL or NUMERIC (SQLite's rules: "INT" anywhere wins).
        try database.execute("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, picture BLOBPOINT, label INT, both_ NUMERIC, ratio REAL, plain INTEGER, b BLOB);
            INSERT INTO t VALUES (1, x'00ff', 'a label', 'text', x'01', 5, x'02');
            INSERT INTO t VALUES (2, x'0102', 7, x'03', 1.5, 6, NULL);
            """)
        try database.close()
        let rules = folder.url("rules.json")
        try folder.write("rules.json", #"{"strict": true, "tables": {"t": {"id": "keep"}}}"#)
        let result = fixturekit(["anonymize", store, "--rules", rules, "-o", folder.url("out.sqlite")], environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: anonymize: \(store): strict: no rule for 5 columns: t.b, t.both_ (numeric column holding text and blobs), t.label (integer column holding text), t.picture (integer column holding blobs), t.ratio (real column holding blobs) (hint: give each a rule in \(rules), or \"keep\")\n")
    }
}
