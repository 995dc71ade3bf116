import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The keyed prefetch: outputs computed ahead on a second thread are the ones
/// computed on the spot.
extension AnonymizeTests {
    /// A store whose text columns hold what the SQL functions meet: unique and
    /// repeated values, NULLs, empty strings, blobs, values longer than the
    /// prefetch takes; `variant` changes some values (another copy of the store).
    func prefetchStore(_ path: String, rows: Int, variant: Bool = false) throws {
        let database = try Database(path: path, options: .init(create: true))
        try database.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, handle TEXT, name TEXT, note TEXT)")
        try database.execute("BEGIN")
        for id in 1...rows {
            var handle: SQLiteValue = .text("handle-\(id)")
            if id % 97 == 0 { handle = .null } else if id % 89 == 0 { handle = .text("") } else if id % 83 == 0 { handle = .blob(Array("blob-\(id)".utf8)) }
            if id % 79 == 0 { handle = .text(String(repeating: "long-\(id)-", count: 12)) }
            if variant && (3000...3500).contains(id) { handle = .text("other-\(id)") }
            let name: SQLiteValue = variant && id > 8000 ? .text("Renamed \(id)") : .text("Name \(id % 150)")
            _ = try database.rows("INSERT INTO people VALUES (?1, ?2, ?3, ?4)", [.integer(Int64(id)), handle, name, .text("[note \(id)]")])
        }
        try database.execute("COMMIT")
        try database.close()
    }

    @Test func keyedOutputsComputedAheadAreTheOnesComputedOnTheSpot() throws {
        let folder = try TemporaryFolder()
        let rows = 12_000
        for name in ["source", "variant"] { try FileManager.default.createDirectory(atPath: folder.url(name), withIntermediateDirectories: true) }
        try prefetchStore(folder.url("source/App.sqlite"), rows: rows)
        // Another copy that differs in places and ends earlier: those values are computed on the spot.
        try prefetchStore(folder.url("variant/App.sqlite"), rows: rows - 500, variant: true)
        let rules = try AnonymizationRules.parse(Array("""
            {"tables": {"people": {
              "handle": {"strategy": "pseudonym", "format": "hex", "length": 16},
              "name": {"strategy": "fake", "kind": "name"},
              "note": {"strategy": "pseudonym", "format": "hex", "where": "id % 2 = 0"},
              "id": "keep"}}}
            """.utf8), path: "rules.json")
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: Self.environment, what: "anonymize", path: "rules.json")
        func run(_ name: String, pristine: String?) throws -> (bytes: [UInt8], result: EngineResult) {
            let run = try runEngine(name, in: folder, rules: rules, key: key, pristine: pristine)
            #expect(run.hits == 0)
            return (run.bytes, run.result)
        }
        // However far the second thread gets (it may not start before the UPDATE ends), the bytes are the same.
        let onTheSpot = try run("spot", pristine: nil)
        let ahead = try run("ahead", pristine: folder.url("source"))
        let differing = try run("differing", pristine: folder.url("variant"))
        #expect(onTheSpot.result.prefetched == 0)
        #expect(ahead.bytes == onTheSpot.bytes)
        #expect(differing.bytes == onTheSpot.bytes)
        #expect(ahead.result.columns == onTheSpot.result.columns)
        #expect(differing.result.columns == onTheSpot.result.columns)
        // The prefetch's copy is gone with the work folder's files.
        #expect(!FileManager.default.fileExists(atPath: folder.url("ahead-raw/.fixturekit-prefetch")))
    }

    @Test func theSecondThreadsOutputsAreTakenOnlyForTheirOwnValue() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("source"), withIntermediateDirectories: true)
        try prefetchStore(folder.url("source/App.sqlite"), rows: 6000)
        let rules = try AnonymizationRules.parse(Array("""
            {"tables": {"people": {"handle": {"strategy": "pseudonym", "format": "email"}, "name": {"strategy": "fake", "kind": "name"}}}}
            """.utf8), path: "rules.json")
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: Self.environment, what: "anonymize", path: "rules.json")
        let database = try Database(path: folder.url("source/App.sqlite"), options: .init(readOnly: true))
        let (bound, _) = try AnonymizationEngine.bind(rules, to: try AnonymizationSchema(database: database), database: database, display: "test")
        let session = AnonymizationSession(key: key, rules: bound, spool: try LeakSpool(folder: folder.path, utf16: false))
        let prefetch = KeyedPrefetch(
            statements: [KeyedPrefetch.Statement(table: "people", rules: bound)], ruleCount: bound.count, hmac: try key.hmac.duplicate(),
            source: folder.url("source"), names: ["App.sqlite"], storeName: "App.sqlite", folder: folder.url("prefetch"))
        // Until a ring is full (the second thread then waits for room): its first 4,096 outputs are ready.
        let deadline = Date().addingTimeInterval(60)
        while !bound.contains(where: { prefetch.waiting(rule: $0.index) == KeyedPrefetch.capacity }) && Date() < deadline { usleep(10_000) }
        let rows = try database.rows("SELECT \(bound.map { quotedIdentifier($0.column) }.joined(separator: ", ")) FROM people ORDER BY rowid")
        var sequences = [Int](repeating: 0, count: bound.count)
        var taken = 0
        for row in rows {
            for rule in bound {
                guard case .text(let text) = row[rule.index] else { continue }
                let other = Array("not-\(text)".utf8)
                var value = text
                let sequence = sequences[rule.index]
                sequences[rule.index] += 1
                var output: [UInt8] = []
                value.withUTF8 { input in
                    // A value other than the one it was computed from is refused (and its output dropped).
                    if sequence % 10 == 3, !input.isEmpty {
                        #expect(!other.withUnsafeBufferPointer { prefetch.take(rule: rule.index, sequence: sequence, input: $0, into: &output) })
                        return
                    }
                    guard prefetch.take(rule: rule.index, sequence: sequence, input: input, into: &output) else { return }
                    taken += 1
                    guard case .success(.text) = session.transform(rule, .text(input), group: nil) else {
                        Issue.record("no text output")
                        return
                    }
                    #expect(output == session.outputBytes, "\(rule.name) #\(sequence)")
                }
            }
        }
        #expect(taken >= KeyedPrefetch.capacity * 9 / 10 - 100)
        prefetch.stop()
        #expect(!FileManager.default.fileExists(atPath: folder.url("prefetch")))
    }

    /// A value met before is taken from the SQL function's own cache, never from
    /// the ring: the second thread must not wait for it to be taken, or it can get
    /// no further ahead than the SQL function (the prefetch then took almost nothing).
    @Test func repeatedValuesDoNotHoldUpTheSecondThread() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("source"), withIntermediateDirectories: true)
        let rows = 3 * KeyedPrefetch.capacity
        let database = try Database(path: folder.url("source/App.sqlite"), options: .init(create: true))
        try database.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, handle TEXT, name TEXT)")
        try database.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO people SELECT i, 'handle-' || i, 'Name ' || (i % 150) FROM n")
        let rules = try AnonymizationRules.parse(Array("""
            {"tables": {"people": {"handle": {"strategy": "pseudonym", "format": "hex"}, "name": {"strategy": "fake", "kind": "name"}}}}
            """.utf8), path: "rules.json")
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: Self.environment, what: "anonymize", path: "rules.json")
        let (bound, _) = try AnonymizationEngine.bind(rules, to: try AnonymizationSchema(database: database), database: database, display: "test")
        let handle = try #require(bound.first { $0.column == "handle" }), name = try #require(bound.first { $0.column == "name" })
        let prefetch = KeyedPrefetch(
            statements: [KeyedPrefetch.Statement(table: "people", rules: [handle, name])], ruleCount: bound.count, hmac: try key.hmac.duplicate(),
            source: folder.url("source"), names: ["App.sqlite"], storeName: "App.sqlite", folder: folder.url("prefetch"))
        defer { prefetch.stop() }
        // As the SQL function goes: every handle is new and taken from the ring; a
        // name is taken the first time only, then found in its cache.
        var output: [UInt8] = []
        for sequence in 0..<rows {
            let deadline = Date().addingTimeInterval(30)
            while prefetch.waiting(rule: handle.index) == 0 && Date() < deadline { usleep(1000) }
            prefetch.skip(rule: handle.index, sequence: sequence)
            let taken = Array("handle-\(sequence + 1)".utf8).withUnsafeBufferPointer { prefetch.take(rule: handle.index, sequence: sequence, input: $0, into: &output) }
            guard taken else {
                Issue.record("handle #\(sequence) was not computed ahead: \(prefetch.waiting(rule: name.index)) names wait in their ring")
                return
            }
            prefetch.skip(rule: name.index, sequence: sequence)
            if sequence < 150 {
                _ = Array("Name \((sequence + 1) % 150)".utf8).withUnsafeBufferPointer { prefetch.take(rule: name.index, sequence: sequence, input: $0, into: &output) }
            }
        }
        try database.close()
    }
}

extension AnonymizeTests {
    /// The prefetch reads a main file that is its set's whole content where it
    /// is (immutable: nothing written beside it), and copies a set whose log or
    /// journal holds content, to replay it on the copy.
    @Test func thePrefetchReadsAMainFileAloneInPlaceAndCopiesASetWithALog() throws {
        let folder = try TemporaryFolder()
        let source = folder.url("source")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try prefetchStore(source + "/App.sqlite", rows: 3000)
        func alone(_ names: [String], in place: String = source) -> Bool {
            KeyedPrefetch.isMainFileAlone(source: place, names: names, storeName: "App.sqlite")
        }
        #expect(alone(["App.sqlite"]))
        // An empty -wal and a -shm hold no content.
        #expect(FileManager.default.createFile(atPath: source + "/App.sqlite-wal", contents: Data()))
        #expect(FileManager.default.createFile(atPath: source + "/App.sqlite-shm", contents: Data(count: 32768)))
        #expect(alone(["App.sqlite", "App.sqlite-wal", "App.sqlite-shm"]))
        // A -wal with frames, a hot journal, a -wal that cannot be read: copied.
        #expect(FileManager.default.createFile(atPath: source + "/App.sqlite-wal", contents: Data(count: 32)))
        #expect(!alone(["App.sqlite", "App.sqlite-wal", "App.sqlite-shm"]))
        #expect(!alone(["App.sqlite", "App.sqlite-journal"]))
        #expect(!alone(["App.sqlite", "App.sqlite-wal"], in: folder.url("absent")))
        for name in ["App.sqlite-wal", "App.sqlite-shm"] { try FileManager.default.removeItem(atPath: source + "/" + name) }

        // Read in place, the source is left as it was, with nothing beside it.
        let before = try folder.read("source/App.sqlite")
        let rules = try AnonymizationRules.parse(Array("""
            {"tables": {"people": {"handle": {"strategy": "pseudonym", "format": "hex", "length": 16},
              "name": {"strategy": "fake", "kind": "name"}, "id": "keep", "note": "keep"}}}
            """.utf8), path: "rules.json")
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: Self.environment, what: "anonymize", path: "rules.json")
        let ahead = try runEngine("ahead", in: folder, rules: rules, key: key, pristine: source)
        let onTheSpot = try runEngine("spot", in: folder, rules: rules, key: key, pristine: nil)
        #expect(ahead.bytes == onTheSpot.bytes)
        #expect(try folder.read("source/App.sqlite") == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: source) == ["App.sqlite"])
    }
}
