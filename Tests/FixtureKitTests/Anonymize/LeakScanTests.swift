import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// Distinctive text of `count` bytes that no other call gives: words of
/// letters drawn from a generator seeded by `seed`, with a non-ASCII letter now
/// and then when `unicode` (then the count is approximate, in characters).
func distinctive(_ count: Int, seed: UInt64, unicode: Bool = false) -> String {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    let others = Array("éßøçłżΩЖ語")
    var text = ""
    text.reserveCapacity(count)
    var characters = 0
    var word = 0
    while characters < count {
        let value = next()
        // Words of 2 to 12 letters, as in prose.
        if word >= 2 && (value % 5 == 0 || word == 12) {
            text.append(" ")
            word = 0
        } else if unicode && value % 11 == 0 {
            text.append(others[Int(value >> 8) % others.count])
        } else {
            text.append(letters[Int(value >> 8) % letters.count])
        }
        if text.last != " " { word += 1 }
        characters += 1
    }
    return text
}

/// A store whose `people.bio` the rules replace (`null`), and a copy of one
/// of its values somewhere the rules keep. Every test anonymizes it and keeps
/// the rejected output (`--keep-failed`) to check where the copy lies.
struct LeakCase {
    let folder: TemporaryFolder
    let store: String
    var rules: String
    var output: String { folder.url("out/App.sqlite") }
    var kept: String { folder.url("failed/App.sqlite") }

    static let key = ["FIXTUREKIT_ANON_KEY": "a-test-key-that-is-long-enough-0123456789"]

    init(pageSize: Int = 4096, encoding: String = "UTF-8", rules: String = #"{"tables": {"people": {"bio": {"strategy": "null"}}}}"#,
         schema: String, fill: (Database) throws -> Void) throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.url("out"), withIntermediateDirectories: true)
        store = folder.url("live/App.sqlite")
        let database = try Database(path: store, options: .init(create: true))
        try database.execute("PRAGMA page_size = \(pageSize); PRAGMA encoding = '\(encoding)'")
        try database.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, bio TEXT);" + schema)
        try fill(database)
        try database.close()
        self.rules = try folder.write("rules.json", rules)
    }

    /// `fixturekit anonymize --json --keep-failed`.
    func anonymize() -> (result: RunResult, report: AnonymizationReport?) {
        let result = fixturekit(["anonymize", store, "--rules", rules, "-o", output, "--json", "--keep-failed", folder.url("failed")], environment: Self.key)
        return (result, try? JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8)))
    }

    /// The last line of stderr: the error.
    static func errorLine(_ result: RunResult) -> String {
        String(result.standardError.split(separator: "\n").last ?? "")
    }
}

@Suite struct LeakScanTests {
    /// A copy kept in another table, of values that SQLite splits over overflow
    /// pages with a page number between the pieces, at every page size: the
    /// scan finds it, and names the table, the column and the row.
    @Test(arguments: [512, 4096, 65536], [5 << 10, 20 << 10, 200 << 10])
    func aCopySplitOverOverflowPagesIsFound(pageSize: Int, size: Int) throws {
        let bios = (1...3).map { distinctive(size, seed: UInt64(size + $0 * 7 + pageSize)) }
        let leak = try LeakCase(pageSize: pageSize, schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, note TEXT, bio TEXT);") { database in
            for (index, bio) in bios.enumerated() {
                _ = try database.rows("INSERT INTO people VALUES (?1, 'someone', ?2)", [.integer(Int64(index + 1)), .text(bio)])
            }
            _ = try database.rows("INSERT INTO history VALUES (7, 'kept', ?1)", [.text(bios[1])])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1, "\(result.standardError)")
        #expect(LeakCase.errorLine(result) == "fixturekit: anonymize: leak scan: \(leak.output): a replaced value of people.bio is in history.bio, rowid 7 (hint: the cell is that value, whole; give history.bio a rule too; the rejected store is kept in \(leak.kept))")
        let hit = try #require(report?.leakScan.hits.first)
        #expect(hit == LeakHit(column: "people.bio", file: leak.output, foundIn: "history.bio", rowid: 7, length: size, piece: false, cellBytes: size, before: "", after: ""))
        #expect(report?.leakScan.hitCount == 1)
        // The value is not in one piece anywhere in the output: a search for it whole finds nothing.
        // The value is in one piece in the output only when its row fits in a page.
        let bytes = try leak.folder.read("failed/App.sqlite")
        #expect(occurs(Array(bios[1].utf8), in: bytes) == (size < pageSize - 35))
        #expect(!result.standardError.contains(String(bios[1].prefix(20))) && !result.standardOutput.contains(String(bios[1].prefix(20))))
    }

    /// A 1,500-byte copy whose row spills onto an overflow page because of a
    /// 3,500-byte neighbour: before it (the copy lies whole on the overflow
    /// page) or after it (the copy is cut between the leaf and the overflow page).
    @Test(arguments: [true, false])
    func aCopyInARowThatSpillsBecauseOfItsNeighbourIsFound(copyFirst: Bool) throws {
        let bio = distinctive(1500, seed: 1500)
        let neighbour = distinctive(3500, seed: 3500)
        let columns = copyFirst ? "bio TEXT, neighbour TEXT" : "neighbour TEXT, bio TEXT"
        let leak = try LeakCase(schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, \(columns));") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO history (id, bio, neighbour) VALUES (42, ?1, ?2)", [.text(bio), .text(neighbour)])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hits.first == LeakHit(column: "people.bio", file: leak.output, foundIn: "history.bio", rowid: 42, length: 1500, piece: false, cellBytes: 1500, before: "", after: ""))
        #expect(report?.leakScan.tablesRead == ["history"])
        #expect(occurs(Array(bio.utf8), in: try leak.folder.read("failed/App.sqlite")) == !copyFirst)
    }

    /// The kept column is indexed: its values are in the index's b-tree too.
    @Test func anIndexedCopyIsFoundInItsTable() throws {
        let bio = distinctive(5 << 10, seed: 5)
        let leak = try LeakCase(schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, bio TEXT); CREATE INDEX history_bio ON history(bio);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO history VALUES (3, ?1)", [.text(bio)])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hits == [LeakHit(column: "people.bio", file: leak.output, foundIn: "history.bio", rowid: 3, length: 5 << 10, piece: false, cellBytes: 5 << 10, before: "", after: "")])
    }

    /// An index on an expression of a kept column rebuilds the replaced value:
    /// SQL does not read its entries, so the hit is named by its page.
    @Test func aValueOnlyAnIndexOnExpressionsHoldsIsFoundByItsPage() throws {
        let email = "zebulon.quackenbush@planted-mail.org"
        let leak = try LeakCase(
            rules: #"{"tables": {"people": {"name": {"strategy": "pseudonym", "format": "email"}}}}"#,
            schema: "CREATE TABLE contacts (id INTEGER PRIMARY KEY, handle TEXT); CREATE INDEX contacts_lower ON contacts(lower(handle));") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, ?1, 'bio')", [.text(email)])
            _ = try database.rows("INSERT INTO contacts VALUES (1, ?1)", [.text(email.uppercased())])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        let hit = try #require(report?.leakScan.hits.first)
        #expect(hit.foundIn == nil && hit.pageType == "index leaf" && hit.btree == "contacts_lower" && hit.length == email.utf8.count && !hit.piece)
        let bytes = try leak.folder.read("failed/App.sqlite")
        let offset = try #require(hit.offset)
        #expect(Array(bytes[Int(offset)..<(Int(offset) + email.utf8.count)]) == Array(email.utf8))
        #expect(hit.page == Int(offset) / 4096 + 1)
        #expect(LeakCase.errorLine(result) == "fixturekit: anonymize: leak scan: \(leak.output): a replaced value of people.name is in the file at offset \(offset) (page \(hit.page ?? 0), an index leaf page of contacts_lower) (hint: the index key is that value, whole; an index on expressions holds it: give the columns it is computed from a rule; the rejected store is kept in \(leak.kept))")
    }

    /// `WITHOUT ROWID` tables: the row is named by its integer key, or by its place in key order.
    @Test func aCopyInATableWithoutRowidIsNamedByItsKey() throws {
        let bio = distinctive(20 << 10, seed: 20)
        let leak = try LeakCase(schema: """
            CREATE TABLE archive (code INTEGER PRIMARY KEY, bio TEXT) WITHOUT ROWID;
            CREATE TABLE labels (name TEXT PRIMARY KEY, bio TEXT) WITHOUT ROWID;
            """) { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO archive VALUES (41, 'other'), (42, ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO labels VALUES ('a', 'other'), ('b', ?1)", [.text(String(bio.prefix(40)))])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hits.map(\.place) == ["archive.bio, key 42", "labels.bio, row 2 in key order"])
        #expect(report?.leakScan.hits.map(\.piece) == [false, true])
    }

    /// A UTF-16 store, in both byte orders: runs are measured in its own encoding.
    @Test(arguments: ["UTF-16le", "UTF-16be"])
    func aCopyInAUTF16StoreIsFound(encoding: String) throws {
        let bio = distinctive(10 << 10, seed: 16, unicode: true)
        let leak = try LeakCase(encoding: encoding, schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, bio TEXT);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO history VALUES (9, ?1)", [.text(bio)])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1, "\(result.standardError)")
        #expect(report?.leakScan.hits.map(\.place) == ["history.bio, rowid 9"])
        #expect(report?.leakScan.hits.first?.piece == false)
    }

    /// An FTS table keeps its text in shadow tables: a kept column of it is found there.
    @Test func aCopyInAFullTextTableIsFoundInItsShadowTable() throws {
        let bio = distinctive(6000, seed: 6000)
        let leak = try LeakCase(schema: "CREATE VIRTUAL TABLE search USING fts5(title, text);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
            _ = try database.rows("INSERT INTO search (rowid, title, text) VALUES (5, 'kept', ?1)", [.text(bio)])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hits.map(\.place) == ["search.text, rowid 5"])
    }

    /// Core Data keeps large binary attributes in files beside the store: a
    /// fixture's external data is searched too, and a hit is named by file and offset.
    @Test func aCopyInCoreDataExternalDataIsFound() throws {
        let bio = distinctive(20 << 10, seed: 21)
        let leak = try LeakCase(schema: "") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
        }
        let support = ".App_SUPPORT/_EXTERNAL_DATA/5F2C9A0E-1D3B-4C6E-9A7B-2E8F0D1C3B4A"
        try leak.folder.write("live/" + support, Array(repeating: 0x2E, count: 100) + Array(bio.utf8) + Array(repeating: 0x2E, count: 100))
        let corpus = leak.folder.url("corpus")
        #expect(fixturekit("capture", leak.store, "--version", "1.0.0", "--corpus", corpus, "--no-anonymize").status == 0)
        let result = fixturekit(["anonymize", corpus + "/1.0.0", "--rules", leak.rules, "--json"], environment: LeakCase.key)
        #expect(result.status == 1)
        let report = try JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8))
        let dots = String(repeating: ".", count: LeakHit.contextBytes)
        #expect(report.leakScan.hits == [LeakHit(column: "people.bio", file: corpus + "/1.0.0/" + support, offset: 100, length: 20 << 10, piece: false, before: dots, after: dots)])
        #expect(LeakCase.errorLine(result) == "fixturekit: anonymize: leak scan: \(corpus)/1.0.0/\(support): a replaced value of people.bio is in the file at offset 100 (hint: the bytes around it are \"…\(dots)\" and \"\(dots)…\"; a file of the store set holds it (Core Data's external data): give its attribute a rule, or leave the file out)")
        // The fixture is left as it was.
        #expect(try Manifest.decode(try leak.folder.read("corpus/1.0.0/manifest.json")).anonymization?.mode == "opted-out")
    }

    /// Runs of 32 bytes are searched; a shorter piece of a longer value is not
    /// (text that short is shared by unrelated values). A value shorter than
    /// that is searched whole, even where SQLite cuts it between two pages.
    @Test func theFragmentLengthIsWhatTheREADMESays() throws {
        let bio = distinctive(5 << 10, seed: 55)
        func run(_ piece: Int) throws -> (RunResult, AnonymizationReport?) {
            let leak = try LeakCase(schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, note TEXT);") { database in
                _ = try database.rows("INSERT INTO people VALUES (1, 'someone', ?1)", [.text(bio)])
                _ = try database.rows("INSERT INTO history VALUES (1, ?1)", [.text("[" + String(bio.dropFirst(1000).prefix(piece)) + "]")])
            }
            return leak.anonymize()
        }
        let short = try run(PatternIndex.runBytes - 1)
        #expect(short.0.status == 0, "\(short.0.standardError)")
        let long = try run(PatternIndex.runBytes)
        #expect(long.0.status == 1)
        #expect(long.1?.leakScan.hits.first?.summary == "a piece (32 bytes) of a replaced value of people.bio is in history.note, rowid 1")

        // A 20-byte value whose kept copy SQLite cuts between the leaf and the overflow page.
        let code = "ZQ-7731-XK-4410-PLNT"
        let leak = try LeakCase(
            rules: #"{"tables": {"people": {"name": {"strategy": "null"}}}}"#,
            schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, pad TEXT, code TEXT, filler TEXT);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, ?1, 'bio')", [.text(code)])
            _ = try database.rows("INSERT INTO history VALUES (1, ?1, ?2, ?3)", [.text(distinctive(475, seed: 475)), .text(code), .text(distinctive(4000, seed: 4000))])
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hits.first?.summary == "a replaced value of people.name is in history.code, rowid 1")
        #expect(!occurs(Array(code.utf8), in: try leak.folder.read("failed/App.sqlite")))
    }

    /// Bytes of two kept values side by side that spell a replaced value are no
    /// leak: no value holds it. They are counted, not reported.
    @Test func aMatchAcrossTwoValuesIsNoLeak() throws {
        let leak = try LeakCase(
            rules: #"{"tables": {"people": {"name": {"strategy": "null"}}}}"#,
            schema: "CREATE TABLE pairs (id INTEGER PRIMARY KEY, first TEXT, second TEXT);") { database in
            try database.execute("INSERT INTO people VALUES (1, 'marmaladecat', 'bio'); INSERT INTO pairs VALUES (1, 'marmalade', 'cat')")
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 0, "\(result.standardError)")
        #expect(report?.leakScan.spanning == 1 && report?.leakScan.tablesRead == ["pairs"])
        #expect(occurs(Array("marmaladecat".utf8), in: try leak.folder.read("out/App.sqlite")))
        #expect(result.standardError.hasSuffix(": none found (1 match across two values: no leak)\n"))
    }

    /// Anonymizing an anonymized fixture again passes: the previous fakes are
    /// found only where a new fake and the next value's first byte spell one.
    @Test(arguments: ["1.0.0", "2.0.0"])
    func theExampleCorpusAnonymizedTwicePasses(version: String) throws {
        let folder = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: ExampleCorpusTests.corpus, toPath: folder.url("MigrationFixtures"))
        let environment = ["FIXTUREKIT_ANON_KEY": "example-corpus-key-not-a-secret"]
        let rules = folder.url("MigrationFixtures/anonymize.json")
        var spanning = 0
        for _ in 1...2 {
            let result = fixturekit(["anonymize", folder.url("MigrationFixtures/" + version), "--rules", rules, "--json", "--force"], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            spanning = (try? JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8)))?.leakScan.spanning ?? -1
        }
        if version == "2.0.0" { #expect(spanning > 0) }
        #expect(fixturekit("verify", "--deep", folder.url("MigrationFixtures/" + version)).status == 0)
    }

    /// A large store is searched in two halves, one per thread, cut between
    /// two pages: what lies on either side of the cut is found as one search of
    /// the whole file finds it.
    @Test func twoHalvesFindWhatOneSearchFinds() throws {
        let folder = try TemporaryFolder()
        var index = PatternIndex()
        let long = Array(distinctive(3000, seed: 3).utf8)
        let short = Array("zq-short-value-77".utf8)
        long.withUnsafeBytes { index.add($0, column: 0) }
        short.withUnsafeBytes { index.add($0, column: 1) }
        index.build()
        var bytes = [UInt8](repeating: 0x2E, count: 3 * LeakScanner.readSize)
        let middle = bytes.count / 2
        // A copy and a short value ending right before the cut, another copy starting right at it.
        bytes.replaceSubrange((middle - 3000 - 40)..<(middle - 40), with: long)
        bytes.replaceSubrange((middle - short.count)..<middle, with: short)
        bytes.replaceSubrange(middle..<(middle + 3000), with: long)
        let file = try folder.write("file.bin", bytes)
        let whole = try LeakScanner.search(file, index: index)
        var halves = try LeakScanner.search(file, to: middle, index: index)
        halves.merge(try LeakScanner.search(file, from: middle, index: index))
        #expect(whole.count == 3 && halves.count == whole.count)
        #expect(whole.kept.map(\.offset) == [UInt64(middle - 3040), UInt64(middle - short.count), UInt64(middle)])
        #expect(halves.kept.map(\.offset) == whole.kept.map(\.offset))
        #expect(halves.kept.map(\.length) == [3000, short.count, 3000] && halves.kept.allSatisfy { !$0.piece })

        // A store whose records all fit in their pages has only b-tree pages; an overflow page is seen.
        let leak = try LeakCase(schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, bio TEXT);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, 'someone', 'short')")
        }
        #expect(try LeakScanner.search(leak.store, index: index, pageSize: 4096).pagesOutsideBTrees == false)
        let database = try Database(path: leak.store)
        _ = try database.rows("INSERT INTO history VALUES (1, ?1)", [.text(distinctive(9000, seed: 9))])
        try database.close()
        #expect(try LeakScanner.search(leak.store, index: index, pageSize: 4096).pagesOutsideBTrees == true)
    }

    /// A store of more than 4 MiB is searched by both threads, one half each: a
    /// copy in either half is found.
    @Test func copiesInBothHalvesOfALargeStoreAreFound() throws {
        let email = "zebulon.quackenbush@planted-mail.org"
        let leak = try LeakCase(
            rules: #"{"tables": {"people": {"name": {"strategy": "null"}}}}"#,
            schema: "CREATE TABLE log (id INTEGER PRIMARY KEY, line TEXT);") { database in
            _ = try database.rows("INSERT INTO people VALUES (1, ?1, 'bio')", [.text(email)])
            try database.execute("BEGIN")
            for id in 1...6000 {
                _ = try database.rows("INSERT INTO log VALUES (?1, ?2)", [.integer(Int64(id)), .text(id == 10 || id == 5990 ? "mail " + email : distinctive(1000, seed: UInt64(id)))])
            }
            try database.execute("COMMIT")
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.bytes ?? 0 > UInt64(LeakScanner.splitBytes))
        #expect(report?.leakScan.hits.map(\.place) == ["log.line, rowid 10", "log.line, rowid 5990"])
    }

    /// A rejected output is kept readable by its owner only, and `--json` prints the whole report.
    @Test func aRejectedOutputIsKeptForInspection() throws {
        let bio = distinctive(300, seed: 300)
        let leak = try LeakCase(schema: "CREATE TABLE history (id INTEGER PRIMARY KEY, bio TEXT);") { database in
            for id in 1...30 { _ = try database.rows("INSERT INTO people VALUES (?1, 'someone', ?2)", [.integer(Int64(id)), .text(bio + String(id))]) }
            try database.execute("INSERT INTO history SELECT id, bio FROM people")
        }
        let (result, report) = leak.anonymize()
        #expect(result.status == 1)
        #expect(report?.leakScan.hitCount == 30 && report?.leakScan.hits.count == LeakScanner.maximumReportedHits)
        #expect(report?.output == leak.output && report?.columns.first?.rowsChanged == 30)
        #expect(LeakCase.errorLine(result).contains("is in history.bio, rowid 1 (and 29 more)"))
        #expect(result.standardError.contains("\n  a replaced value of people.bio is in history.bio, rowid 20\n  and 10 more\n"))
        var info = stat()
        #expect(stat(leak.kept, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: leak.output))
        #expect(try FileManager.default.contentsOfDirectory(atPath: leak.folder.url("failed")) == ["App.sqlite"])
        // Without --keep-failed, nothing is left anywhere.
        let plain = fixturekit(["anonymize", leak.store, "--rules", leak.rules, "-o", leak.output], environment: LeakCase.key)
        #expect(plain.status == 1 && plain.standardOutput.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: leak.folder.url("out")) == [])
    }
}
