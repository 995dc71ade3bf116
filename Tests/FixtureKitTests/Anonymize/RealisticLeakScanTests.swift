import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The leak scan on a realistic store: no false alarm where a short replaced
/// value is only part of a timestamp, base64, a UUID or a hex token, and every
/// copy planted where it stands whole (or, for a longer value, as a run) found.
@Suite struct RealisticLeakScanTests {
    /// Copies planted of each kind of value.
    static let copies = 50
    /// Where a copy is planted, in turn.
    enum Place: Int, CaseIterable {
        case cell, word, fullText, overflow, expressionKey, json
    }

    /// The store set at `folder/live/App.sqlite` (its connection held open), and the rules file.
    func makeStore(_ folder: TemporaryFolder, pageSize: Int, plant: ((RealisticStore) throws -> Void)? = nil) throws -> (RealisticStore, String) {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try RealisticStore(path: folder.url("live/App.sqlite"), pageSize: pageSize)
        try plant?(store)
        try store.keepCommitsInWAL()
        return (store, try folder.write("rules.json", RealisticStore.rules))
    }

    /// Anonymizes the store set in `folder/live` through the engine, and scans the output listing every hit.
    func anonymize(_ folder: TemporaryFolder, rules: String) throws -> (output: [UInt8], scan: LeakScanReport) {
        let raw = folder.url("raw")
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        for name in ["App.sqlite", "App.sqlite-wal"] { try FileManager.default.copyItem(atPath: folder.url("live/" + name), toPath: raw + "/" + name) }
        let output = folder.url("out.sqlite")
        let loaded = try AnonymizationRules.load(rules)
        let key = try AnonymizationKey(variable: "FIXTUREKIT_ANON_KEY", environment: LeakCase.key, what: "test", path: rules)
        let result = try AnonymizationEngine.run(folder: raw, storeName: "App.sqlite", output: output, rules: loaded, key: key, spoolFolder: raw, display: "App.sqlite")
        let scan = try result.leakScan.finish(LeakScan.Target(files: [(output, "out.sqlite")], store: output, utf16: false, columns: result.ruleNames, reportedHits: .max))
        return (try folder.read("out.sqlite"), scan)
    }

    @Test(arguments: [1024, 4096, 65536])
    func aRealisticStoreFreezesWithoutFalseAlarms(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try makeStore(folder, pageSize: pageSize)
        let output = folder.url("out.sqlite")
        let result = fixturekit(["anonymize", store.path, "--rules", rules, "-o", output, "--json"], environment: LeakCase.key)
        #expect(result.status == 0, "\(result.standardError)")
        let report = try #require(try? JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8)))
        #expect(report.leakScan.hitCount == 0 && report.leakScan.hits.isEmpty)
        // Names and codes are judged whole, e-mail addresses searched as they are.
        let scan = report.leakScan
        #expect(scan.wholeValueBytes > 6 && scan.wholeValueBytes <= store.emails.map(\.utf8.count).min()!, "\(scan.wholeValueBytes)")
        // Every match placed on purpose was seen, and judged no leak.
        #expect(scan.embedded >= store.embedded && store.embedded >= 200, "\(scan.embedded) of \(store.embedded)")
        #expect(result.standardError.contains(": none found (\(scan.embedded) matches of a short value inside a longer word or number: no leak)\n"), "\(result.standardError)")
        // The kept columns still hold them: the codes inside timestamps and tokens, the names inside base64.
        let bytes = try folder.read("out.sqlite")
        #expect(occurs(Array(".\(store.codes[0])".utf8), in: bytes) && occurs(Array(store.names[0].utf8), in: bytes))
        _ = store
    }

    /// 50 copies of each kind of replaced value (6-digit codes and 4–6 letter
    /// names, matched whole; e-mail addresses, searched as they are; notes,
    /// searched by runs of 32 bytes), each in one place: a whole cell (indexed),
    /// a word of a kept text, an FTS table's text, a text that spills over
    /// overflow pages, an index key on an expression, a JSON value. And copies
    /// only in free pages and in the WAL's old frames, which the output cannot hold.
    @Test(arguments: [1024, 4096, 65536])
    func everyPlantedCopyIsFound(pageSize: Int) throws {
        let folder = try TemporaryFolder()
        var gone: [String] = []
        var expressionKeys = 0
        func plant(_ store: RealisticStore, _ kind: Int, _ copy: Int) throws {
            let kinds = [store.codes, store.names, store.emails, store.notes]
            let value = kinds[kind][(copy * 7 + kind) % store.codes.count]
            let place = Place.allCases[copy % Place.allCases.count]
            // A note is copied whole, or as a run of it (at least 100 bytes; short enough for an index key).
            let piece = kind == 3 && (copy % 2 == 1 || place == .expressionKey) ? String(value.dropFirst(copy % 50).prefix(100 + copy)) : value
            let database = store.database
            switch place {
            case .cell:
                _ = try database.rows("INSERT INTO tickets (reference) VALUES (?1)", [.text(piece)])
            case .word:
                _ = try database.rows("INSERT INTO tickets (subject) VALUES (?1)", [.text("Re: \(piece), thanks")])
            case .fullText:
                _ = try database.rows("INSERT INTO ticket_search (subject, body) VALUES ('question', ?1)", [.text("see \(piece) here")])
            case .overflow:
                let filler = distinctive(3 * pageSize + copy * 37, seed: UInt64(pageSize + copy))
                let at = filler.index(filler.startIndex, offsetBy: (pageSize - 40 + copy * 13) % filler.count)
                _ = try database.rows("INSERT INTO tickets (body) VALUES (?1)", [.text(String(filler[..<at]) + " \(piece) " + String(filler[at...]))])
            case .expressionKey:
                // The cell holds it cut by dashes (no run of it, no whole word): only the index key is the value.
                let step = kind == 3 ? 20 : 2
                let cut = stride(from: 0, to: piece.count, by: step).map { String(piece.dropFirst($0).prefix(step)) }.joined(separator: "-")
                _ = try database.rows("INSERT INTO tickets (handle) VALUES (?1)", [.text(cut)])
                expressionKeys += 1
            case .json:
                _ = try database.rows("INSERT INTO tickets (payload) VALUES (?1)", [.text("{\"user\":\"\(piece)\",\"at\":\"2019-08-25 06:59:42.831440\"}")])
            }
        }
        /// Copies of the users `back` from the last written into a table, then deleted with
        /// it: its pages are freed whole, their bytes stay in the file.
        func plantGone(_ store: RealisticStore, back: Int) throws {
            for (kind, values) in [store.codes, store.names, store.emails, store.notes].enumerated() {
                let value = values[values.count - back - kind]
                _ = try store.database.rows("INSERT INTO trash VALUES (?1, ?2)", [.text(value), .text("Re: \(value), thanks")])
                // What lies in one piece in the file, even when SQLite cuts the row over pages.
                gone.append("Re: \(value.prefix(40))")
            }
            try store.database.execute("DELETE FROM trash")
        }
        let (store, rules) = try makeStore(folder, pageSize: pageSize) { store in
            try store.database.execute("""
                CREATE TABLE tickets (id INTEGER PRIMARY KEY, reference TEXT, subject TEXT, body TEXT, handle TEXT, payload TEXT);
                CREATE INDEX tickets_reference ON tickets(reference);
                CREATE INDEX tickets_handle ON tickets(replace(handle, '-', ''));
                CREATE VIRTUAL TABLE ticket_search USING fts5(subject, body);
                CREATE TABLE trash (reference TEXT, subject TEXT);
                """)
            for kind in 0..<4 { for copy in 0..<(Self.copies - 5) { try plant(store, kind, copy) } }
            // Deleted before the WAL: in free pages and freeblocks of the main file.
            try plantGone(store, back: 1)
        }
        // The last copies live only in the WAL; others are written there and deleted in a later frame.
        for kind in 0..<4 { for copy in (Self.copies - 5)..<Self.copies { try plant(store, kind, copy) } }
        try plantGone(store, back: 10)
        let input = [store.path, store.path + "-wal"].flatMap { FileManager.default.contents(atPath: $0).map(Array.init) ?? [] }
        #expect(gone.filter { !occurs(Array($0.utf8), in: input) } == [])

        let (output, scan) = try anonymize(folder, rules: rules)
        // One hit for each copy, named by the column it was replaced in; none for anything else.
        #expect(scan.hitCount == 4 * Self.copies && scan.hits.count == scan.hitCount, "\(scan.hits.map(\.summary))")
        for column in ["users.code", "users.name", "users.email", "users.note"] {
            #expect(scan.hits.filter { $0.column == column }.count == Self.copies, "\(column)")
        }
        #expect(Set(scan.hits.compactMap(\.foundIn)) == ["tickets.reference", "tickets.subject", "tickets.body", "tickets.payload", "ticket_search.body"])
        #expect(scan.hits.filter { $0.btree == "tickets_handle" && $0.pageType?.hasPrefix("index") == true }.count == expressionKeys)
        #expect(scan.hits.filter { $0.foundIn == "tickets.reference" }.allSatisfy { $0.isWholeCell })
        // What was deleted is nowhere in the output.
        #expect(gone.allSatisfy { !occurs(Array($0.utf8), in: output) })
        _ = store
    }
}
