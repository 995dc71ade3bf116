import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

@Suite struct AnonymizeTests {
    static let key = "a-test-key-that-is-long-enough-0123456789"
    static let environment = ["FIXTUREKIT_ANON_KEY": key]

    func setUp(_ folder: TemporaryFolder, rules: String = PlantedStore.rules) throws -> (PlantedStore, String) {
        try FileManager.default.createDirectory(atPath: folder.url("live"), withIntermediateDirectories: true)
        let store = try PlantedStore(in: folder.url("live"))
        return (store, try folder.write("rules.json", rules))
    }

    @Test func noPlantedValueIsLeftAnywhereInTheOutput() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        // The input really holds every planted value, deleted row and -wal included.
        let inputFiles = [store.path, store.path + "-wal"]
        #expect(try distinctPlantedValues(in: inputFiles) == Set(PlantedStore.planted))
        #expect(WALFile(bytes: try folder.read("live/App.sqlite-wal")).commits >= 2)

        let output = folder.url("out/App.sqlite")
        try FileManager.default.createDirectory(atPath: folder.url("out"), withIntermediateDirectories: true)
        let result = fixturekit(["anonymize", store.path, "--rules", rules, "--output", output, "--json"], environment: Self.environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url("out")) == ["App.sqlite"])
        #expect(try plantedValues(in: [output]) == [])
        // One checkpointed file, in WAL mode as the store was.
        let header = try folder.read("out/App.sqlite")
        #expect(header[18] == 2 && header[19] == 2)
        let report = try JSONDecoder().decode(AnonymizationReport.self, from: Data(result.standardOutput.utf8))
        #expect(report.rebuiltIndexes == ["notes"])
        #expect(report.columns.first { $0.table == "users" && $0.column == "email" }?.rowsChanged == 41)
        #expect(report.columns.first { $0.table == "orders" && $0.column == "email" }?.rowsChanged == 5)
        #expect(report.leakScan.hitCount == 0 && report.leakScan.valuesSearched > 100)
        #expect(!result.standardOutput.contains(Self.key) && !result.standardError.contains(Self.key))
        #expect(result.standardError.hasSuffix(": none found\n"), "\(result.standardError)")
        // The input is untouched: its -wal still holds the commits.
        #expect(try distinctPlantedValues(in: inputFiles) == Set(PlantedStore.planted))
        _ = store
    }

    @Test func joinsSurviveAndUniqueColumnsStayUnique() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        let pairs = "SELECT u.id, o.id FROM users u JOIN orders o ON o.email = u.email ORDER BY 1, 2"
        let before = try store.database.rows(pairs)
        #expect(before.count == 5)
        let output = folder.url("out.sqlite")
        #expect(fixturekit(["anonymize", store.path, "--rules", rules, "-o", output], environment: Self.environment).status == 0)
        let anonymized = try Database(path: output, options: .init(readOnly: true))
        #expect(try anonymized.rows(pairs) == before)
        #expect(try anonymized.scalar("SELECT count(*) FROM orders WHERE email NOT LIKE 'user-%@example.invalid'") == .integer(0))
        #expect(try anonymized.scalar("SELECT count(DISTINCT code) = count(*) AND count(*) = 3000 FROM badges") == .integer(1))
        #expect(try anonymized.scalar("SELECT count(*) FROM badges WHERE code NOT GLOB 'B-[0-9][0-9][0-9][0-9]'") == .integer(0))
        // Dates keep their shape and move by at most 30 days, the same for one person in both tables.
        #expect(try anonymized.scalar("SELECT born FROM users WHERE id = 2")?.text?.hasSuffix("T08:30:00Z") == true)
        let shifts = try anonymized.rows("SELECT DISTINCT julianday(o.placed_at) - julianday(p.placed_at) FROM orders o JOIN (SELECT 1 AS id, '2023-01-15 10:00:00' AS placed_at UNION ALL SELECT 2, '2023-02-15 10:00:00') p ON p.id = o.id")
        #expect(shifts.count == 1)
        if let days = shifts.first?.first, case .real(let value) = days { #expect(abs(value) >= 1 && abs(value) <= 30) }
        // The FTS index answers from the anonymized text only.
        #expect(try anonymized.scalar("SELECT count(*) FROM notes WHERE notes MATCH 'xylophonic'") == .integer(0))
        #expect(try anonymized.scalar("PRAGMA integrity_check") == .text("ok"))
    }

    @Test func twoRunsGiveIdenticalBytes() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        for name in ["first.sqlite", "second.sqlite"] {
            #expect(fixturekit(["anonymize", store.path, "--rules", rules, "-o", folder.url(name)], environment: Self.environment).status == 0)
        }
        #expect(try folder.read("first.sqlite") == (try folder.read("second.sqlite")))
        // Another key gives other bytes.
        let other = fixturekit(["anonymize", store.path, "--rules", rules, "-o", folder.url("third.sqlite")], environment: ["FIXTUREKIT_ANON_KEY": "another-key-also-long-enough-987654"])
        #expect(other.status == 0)
        #expect(try folder.read("first.sqlite") != (try folder.read("third.sqlite")))
    }

    @Test func strictModeNamesEveryUncoveredColumn() throws {
        let folder = try TemporaryFolder()
        let rules = PlantedStore.rules.replacingOccurrences(of: "\"phone\": {\"strategy\": \"mask\", \"keepLast\": 2},", with: "")
            .replacingOccurrences(of: "\"notes\": {\"body\": {\"strategy\": \"fake\", \"kind\": \"text\"}}", with: "\"notes\": {}")
        let (store, rulesPath) = try setUp(folder, rules: rules)
        let result = fixturekit(["anonymize", store.path, "--rules", rulesPath, "-o", folder.url("out.sqlite")], environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: anonymize: \(store.path): strict: no rule for 2 columns: notes.body, users.phone (hint: give each a rule in \(rulesPath), or \"keep\")\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))
    }

    @Test func aMissingShortOrWrongKeyIsRefused() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        let output = folder.url("out.sqlite")
        let missing = fixturekit(["anonymize", store.path, "--rules", rules, "-o", output], environment: [:])
        #expect(missing.status == 2)
        #expect(missing.standardError == "fixturekit: anonymize: \(rules): no key: the environment variable FIXTUREKIT_ANON_KEY is not set (hint: export the secret key in FIXTUREKIT_ANON_KEY)\n")
        let empty = fixturekit(["anonymize", store.path, "--rules", rules, "-o", output], environment: ["FIXTUREKIT_ANON_KEY": ""])
        #expect(empty.standardError == "fixturekit: anonymize: \(rules): no key: the environment variable FIXTUREKIT_ANON_KEY is empty (hint: export the secret key in FIXTUREKIT_ANON_KEY)\n")
        let short = fixturekit(["anonymize", store.path, "--rules", rules, "-o", output], environment: ["FIXTUREKIT_ANON_KEY": "secret123"])
        #expect(short.status == 2)
        #expect(short.standardError == "fixturekit: anonymize: \(rules): the key in FIXTUREKIT_ANON_KEY is too short: 9 bytes, at least 16 needed (hint: use a long random secret, e.g. `openssl rand -hex 32`)\n")
        #expect(!short.standardError.contains("secret123"))
        #expect(!FileManager.default.fileExists(atPath: output))

        // A corpus anonymized with one key refuses another: pseudonyms would not match across versions.
        try writeCorpus(folder)
        #expect(fixturekit(["capture", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus")], environment: Self.environment).status == 0)
        let wrongKey = ["FIXTUREKIT_ANON_KEY": "not-the-corpus-key-but-long-enough"]
        let wrong = fixturekit(["capture", store.path, "--version", "1.1.0", "--corpus", folder.url("corpus")], environment: wrongKey)
        #expect(wrong.status == 2)
        let manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
        let wrongCheck = try AnonymizationKey(variable: "K", environment: ["K": wrongKey["FIXTUREKIT_ANON_KEY"]!], what: "", path: "").keyCheck
        #expect(wrong.standardError == "fixturekit: capture: \(folder.url("corpus/1.0.0/manifest.json")): the key is not the one this fixture was anonymized with (key check \(manifest.anonymization?.keyCheck ?? "?"), the key gives \(wrongCheck)) (hint: use the corpus' key: pseudonyms must match across versions)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.url("corpus/1.1.0")))
    }

    @Test func theLeakScanFailsWhenAReplacedValueIsLeft() throws {
        let folder = try TemporaryFolder()
        // orders.email is kept while users.email is replaced: the same addresses stay in the file.
        let rules = PlantedStore.rules.replacingOccurrences(of: "\"orders\": {\n      \"email\": {\"strategy\": \"pseudonym\", \"format\": \"email\", \"domain\": \"email\"},", with: "\"orders\": {\n      \"email\": \"keep\",")
        #expect(rules != PlantedStore.rules)
        let (store, rulesPath) = try setUp(folder, rules: rules)
        let output = folder.url("out.sqlite")
        let result = fixturekit(["anonymize", store.path, "--rules", rulesPath, "-o", output], environment: Self.environment)
        #expect(result.status == 1)
        #expect(result.standardError.hasSuffix("\nfixturekit: anonymize: leak scan: \(output): a replaced value of users.email is in orders.email, rowid 1 (and 4 more) (hint: the cell is that value, whole; give orders.email a rule too)\n"), "\(result.standardError)")
        #expect(!result.standardError.contains("planted-mail"))
        // Nothing is written when the scan fails, and nothing is left beside the output.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["live", "rules.json"])
    }

    @Test func theLeakScanFindsAValueAcrossReadsAndBatches() throws {
        let folder = try TemporaryFolder()
        let spool = try LeakSpool(folder: folder.path, utf16: false)
        // Short values (searched whole) and long ones (searched by their windows).
        let values = (0..<5000).map { Array("value-number-\($0)-padding".utf8) }
        let long = (0..<40).map { Array(distinctive(1500, seed: UInt64(1000 + $0)).utf8) }
        for (index, value) in (values + long).enumerated() {
            value.withUnsafeBytes { spool.addOriginal(column: index % 2, $0, isText: true) }
        }
        // A file of filler (a Core Data external data file, say), with a short value straddling
        // the first read boundary and a 100-byte piece of a long value straddling the second.
        var bytes = [UInt8](repeating: 0x2E, count: LeakScanner.readSize * 3)
        let planted = values[4321]
        let offset = LeakScanner.readSize - 5
        bytes.replaceSubrange(offset..<(offset + planted.count), with: planted)
        let piece = Array(long[7][500..<600])
        let pieceOffset = 2 * LeakScanner.readSize - 50
        bytes.replaceSubrange(pieceOffset..<(pieceOffset + piece.count), with: piece)
        // Only 31 bytes of another long value: shorter than a run, not searched.
        bytes.replaceSubrange(4000..<4031, with: long[9][200..<231])
        // A value the rules wrote holds value 17: it is no leak.
        let written = Array("value-number-17-padding".utf8)
        written.withUnsafeBytes { spool.addWritten($0, isText: true) }
        bytes.replaceSubrange(100..<(100 + written.count), with: written)
        let file = try folder.write("file.bin", bytes)
        // The store keeps values of the first, a middle and the last batch in a table.
        let store = folder.url("App.sqlite")
        let database = try Database(path: store, options: .init(create: true))
        try database.execute("CREATE TABLE kept (x TEXT, y TEXT)")
        _ = try database.rows("INSERT INTO kept VALUES (?1, ?2), (?3, NULL)", [
            .text("<" + String(decoding: values[100], as: UTF8.self) + ">"), .text(String(decoding: long[20][700..<1000], as: UTF8.self)),
            .text(String(decoding: values[2501], as: UTF8.self)),
        ])
        try database.close()
        // Small batches: the patterns are searched in several passes.
        let scan = LeakScan(spool: spool, schemaText: [], batchBytes: 16 << 10)
        let report = try scan.finish(LeakScan.Target(files: [(store, "App.sqlite"), (file, "file.bin")], store: store, utf16: false, columns: ["t.a", "t.b"]))
        #expect(report.hitCount == 5)
        #expect(report.hits.filter { $0.foundIn != nil }.map(\.summary).sorted() == [
            "a piece (300 bytes) of a replaced value of t.a is in kept.y, rowid 1",
            "a replaced value of t.a is in kept.x, rowid 1",
            "a replaced value of t.b is in kept.x, rowid 2",
        ])
        let inFile = report.hits.filter { $0.foundIn == nil }
        #expect(inFile.count == 2)
        // The bytes around it are shown, never the value itself.
        let dots = String(repeating: ".", count: LeakHit.contextBytes)
        #expect(inFile.first == LeakHit(column: "t.b", file: "file.bin", offset: UInt64(offset), length: planted.count, piece: false, before: dots, after: dots))
        let pieceHit = try #require(inFile.last)
        #expect(pieceHit.column == "t.b" && pieceHit.piece && pieceHit.length >= PatternIndex.runBytes)
        #expect(pieceHit.offset.map { $0 >= UInt64(pieceOffset) && $0 < UInt64(pieceOffset + PatternIndex.windowStep) } == true)
        #expect(report.valuesSearched == 4999 + 40 && report.valuesExempt == 1)
    }

    @Test func captureAppliesTheCorpusRulesBeforeInstalling() throws {
        let folder = try TemporaryFolder()
        let (store, _) = try setUp(folder)
        try writeCorpus(folder)
        let corpus = folder.url("corpus")
        let result = fixturekit(["capture", store.path, "--version", "1.0.0", "--corpus", corpus], environment: Self.environment)
        #expect(result.status == 0, "\(result.standardError)")
        // The first fixture of a new corpus starts its lock, after the anonymization.
        #expect(result.standardError.hasSuffix("\(corpus)/1.0.0: anonymized by the corpus' rules: 11 columns with a rule, leak scan passed\n\(corpus)/fixturekit.lock: locked 1.0.0: content, sums\n"))
        #expect(try plantedValues(in: files(below: corpus)) == [])
        let manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
        let rulesHash = try SHA256.hash(try folder.read("corpus/anonymize.json")).hex
        #expect(manifest.anonymization?.mode == "rules")
        #expect(manifest.anonymization?.rules == rulesHash)
        #expect(manifest.anonymization?.columns?["users.email"] == "pseudonym")
        #expect(manifest.anonymization?.columns?["users.id"] == "keep")
        #expect(manifest.tables["users"] == 41)
        #expect(!String(decoding: try folder.read("corpus/1.0.0/manifest.json"), as: UTF8.self).contains(Self.key))
        #expect(fixturekit("verify", "--deep", corpus + "/1.0.0").status == 0)

        // Anonymizing folds the -wal away: raw mode is refused, unless the store is declared synthetic.
        let raw = fixturekit(["capture", store.path, "--version", "1.1.0", "--corpus", corpus, "--mode", "raw"], environment: Self.environment)
        #expect(raw.status == 2)
        #expect(raw.standardError == "fixturekit: capture: \(store.path): the corpus anonymizes its fixtures (\(corpus)/anonymize.json), and anonymizing folds the -wal away: --mode raw cannot keep it (hint: capture with --mode snapshot, or --no-anonymize for a store that holds synthetic data only)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: corpus).sorted() == ["1.0.0", "anonymize.json", "fixturekit.json", "fixturekit.lock"])
        let optedOut = fixturekit(["capture", store.path, "--version", "1.1.0", "--corpus", corpus, "--mode", "raw", "--no-anonymize"], environment: Self.environment)
        #expect(optedOut.status == 0)
        #expect(try Manifest.decode(try folder.read("corpus/1.1.0/manifest.json")).anonymization == Manifest.Anonymization(mode: "opted-out"))
    }

    @Test func aFixtureFolderIsAnonymizedInPlaceAndStillVerifies() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        let fixture = folder.url("corpus/1.0.0")
        #expect(fixturekit("capture", store.path, "--version", "1.0.0", "--corpus", folder.url("corpus"), "--mode", "raw", "--no-anonymize").status == 0)
        #expect(try distinctPlantedValues(in: files(below: fixture)) == Set(PlantedStore.planted))
        let result = fixturekit(["anonymize", fixture, "--rules", rules], environment: Self.environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture).sorted() == ["App.sqlite", "SHA256SUMS", "manifest.json"])
        #expect(try plantedValues(in: files(below: folder.url("corpus"))) == [])
        let manifest = try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json"))
        #expect(manifest.sidecars == [] && manifest.wal == nil && manifest.anonymization?.mode == "rules")
        #expect(manifest.tables == ["badges": 3000, "orders": 5, "users": 41])
        #expect(fixturekit("verify", "--deep", fixture).status == 0)
        #expect(try run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], in: fixture).status == 0)
        // A checkpoint of the anonymized fixture keeps the record of its anonymization.
        #expect(fixturekit("checkpoint", fixture).status == 0)
        #expect(try Manifest.decode(try folder.read("corpus/1.0.0/manifest.json")).anonymization == manifest.anonymization)
    }

    @Test func anOutputThatIsTheInputOrExistsIsRefused() throws {
        let folder = try TemporaryFolder()
        let (store, rules) = try setUp(folder)
        let same = fixturekit(["anonymize", store.path, "--rules", rules, "-o", store.path], environment: Self.environment)
        #expect(same.status == 2)
        #expect(same.standardError == "fixturekit: anonymize: \(store.path): is the input store: anonymize never rewrites a store in place (hint: name another file with --output)\n")
        try folder.write("exists.sqlite", "x")
        let exists = fixturekit(["anonymize", store.path, "--rules", rules, "-o", folder.url("exists.sqlite")], environment: Self.environment)
        #expect(exists.standardError == "fixturekit: anonymize: \(folder.url("exists.sqlite")): the file exists (hint: --force replaces it)\n")
        #expect(fixturekit(["anonymize", store.path, "--rules", rules, "-o", folder.url("exists.sqlite"), "--force"], environment: Self.environment).status == 0)
        let usage = fixturekit(["anonymize", store.path, "--rules", rules])
        #expect(usage.status == 64)
        #expect(usage.standardError.hasPrefix("Error: missing required option '--output <FILE>' for a store (it is never rewritten in place)\n"))
    }

    @Test(arguments: [
        ("{\"tables\": {}, \"strickt\": true}", "unknown key \"strickt\""),
        ("{\"tables\": {\"users\": {\"phone\": {\"strategy\": \"mask\", \"keeplast\": 2}}}}", "tables.users.phone: unknown key \"keeplast\" for strategy mask"),
        ("{\"tables\": {\"users\": {\"phone\": \"scramble\"}}}", "tables.users.phone: unknown strategy \"scramble\" (one of pseudonym, fake, mask, null, value, shift-date, noise, keep)"),
        ("{\"tables\": {\"users\": {\"email\": {\"strategy\": \"pseudonym\", \"format\": \"base64\"}}}}", "tables.users.email: \"format\" must be one of hex, uuid, email, name, digits, not \"base64\""),
        ("{\"tables\": {\"users\": {\"a\": {\"strategy\": \"pseudonym\", \"domain\": \"d\"}, \"b\": {\"strategy\": \"pseudonym\", \"format\": \"uuid\", \"domain\": \"d\"}}}}", "tables.users.b: domain \"d\" is uuid here and hex in tables.users.a: one domain, one format"),
        ("{\"strict\": true}", "\"tables\" is missing"),
        ("[1, 2]", "the top level has the wrong type"),
    ])
    func aMalformedRulesFileIsRefusedWithItsReason(rules: String, why: String) throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("rules.json", rules)
        let result = fixturekit(["anonymize", folder.url("App.sqlite"), "--rules", path, "-o", folder.url("out.sqlite")], environment: Self.environment)
        #expect(result.status == 2)
        #expect(result.standardError == "fixturekit: read rules: \(path): \(why)\n")
    }

    /// Anonymizes `App.sqlite`, made by `statements`, with `rules`, into `out.sqlite` beside it.
    static func anonymizeStore(_ statements: [String], rules: String, json: Bool = false) throws -> (folder: TemporaryFolder, result: RunResult) {
        let folder = try TemporaryFolder()
        let database = try Database(path: folder.url("App.sqlite"), options: .init(create: true))
        for statement in statements { try database.execute(statement) }
        try database.close()
        let rules = try folder.write("rules.json", rules)
        let result = fixturekit(["anonymize", folder.url("App.sqlite"), "--rules", rules, "-o", folder.url("out.sqlite")] + (json ? ["--json"] : []), environment: Self.environment)
        return (folder, result)
    }

    /// Rules that rewrite nothing (every column kept, or no table named) on a
    /// store with no index profile no column at all: the output is the input's
    /// content, and nothing is freed that was never made.
    @Test(arguments: [
        "{\"tables\": {\"notes\": {\"id\": \"keep\", \"body\": \"keep\"}}}",
        "{\"tables\": {}}",
    ])
    func rulesThatRewriteNothingCopyTheContent(rules: String) throws {
        let (folder, result) = try Self.anonymizeStore([
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
            "INSERT INTO notes VALUES (1, 'first'), (2, NULL), (3, '')",
        ], rules: rules)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.hasPrefix("\(folder.url("out.sqlite")): anonymized \(folder.url("App.sqlite")) with \(folder.url("rules.json")): 0 columns rewritten, 0 values replaced\n"), "\(result.standardError)")
        let input = try Database(path: folder.url("App.sqlite"), options: .init(readOnly: true))
        let output = try Database(path: folder.url("out.sqlite"), options: .init(readOnly: true))
        #expect(try output.contentHash() == input.contentHash())
    }

    /// A column set to `null` is exempt from the search for its own values
    /// only: another column whose name differs from it only in a non-ASCII
    /// letter's case is another column to SQLite, and its copy is a leak.
    @Test func aColumnNamedLikeANulledOneIsStillSearched() throws {
        let value = "Zephyrine Quillfeather-Obadiah lives at 42 Marrow Lane"
        let (folder, result) = try Self.anonymizeStore([
            "CREATE TABLE people (id INTEGER PRIMARY KEY, \"Énote\" TEXT, \"énote\" TEXT)",
            "INSERT INTO people VALUES (1, '\(value)', '\(value)')",
        ], rules: "{\"tables\": {\"people\": {\"id\": \"keep\", \"Énote\": {\"strategy\": \"null\"}, \"énote\": \"keep\"}}}")
        #expect(result.status == 1, "\(result.standardError)")
        #expect(result.standardError.contains("leak scan: \(folder.url("out.sqlite")): a replaced value of people.Énote is in people.énote, rowid 1"), "\(result.standardError)")
    }

    @Test func aContentlessFullTextIndexIsRefused() throws {
        let (folder, result) = try Self.anonymizeStore([
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); CREATE VIRTUAL TABLE search USING fts5(body, content='')",
            "INSERT INTO notes VALUES (1, 'Zebulon confided his xylophonic divorce'); INSERT INTO search (rowid, body) VALUES (1, 'Zebulon confided his xylophonic divorce')",
        ], rules: "{\"tables\": {\"notes\": {\"body\": {\"strategy\": \"fake\"}}}}")
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("fixturekit: anonymize: \(folder.url("App.sqlite")): FTS table search cannot be rebuilt from the anonymized text (it keeps no text of its own: contentless, or its content table is gone): SQLite error 1: 'rebuild' may not be used with a contentless fts5 table"), "\(result.standardError)")
        #expect(result.standardError.hasSuffix("(hint: a contentless FTS index (content='') keeps tokens of the old values that only dropping it removes)\n"))
        #expect(!FileManager.default.fileExists(atPath: folder.url("out.sqlite")))
    }

    @Test func aUTF16StoreIsScannedInItsOwnEncoding() throws {
        let (folder, result) = try Self.anonymizeStore([
            "PRAGMA encoding = 'UTF-16le'; CREATE TABLE users (email TEXT, copy TEXT)",
            "INSERT INTO users VALUES ('zebulon.quackenbush@planted-mail.org', 'zebulon.quackenbush@planted-mail.org')",
        ], rules: "{\"tables\": {\"users\": {\"email\": {\"strategy\": \"pseudonym\", \"format\": \"email\"}, \"copy\": \"keep\"}}}")
        // The kept copy holds the replaced address, in UTF-16: the scan finds it there.
        #expect(result.status == 1)
        #expect(result.standardError.hasSuffix("\nfixturekit: anonymize: leak scan: \(folder.url("out.sqlite")): a replaced value of users.email is in users.copy, rowid 1 (hint: the cell is that value, whole; give users.copy a rule too)\n"), "\(result.standardError)")
    }

    @Test func datesShiftInTheirOwnFormat() throws {
        func shifted(_ text: String, _ days: Int) -> String? {
            var output: [UInt8] = []
            let bytes = Array(text.utf8)
            let ok = bytes.withUnsafeBufferPointer { DateShift.shift($0, days: days, into: &output) }
            return ok ? String(decoding: output, as: UTF8.self) : nil
        }
        #expect(shifted("2024-02-28", 1) == "2024-02-29")
        #expect(shifted("2023-12-31T23:59:59.123+02:00", 1) == "2024-01-01T23:59:59.123+02:00")
        #expect(shifted("2000-03-01 08:00", -1) == "2000-02-29 08:00")
        #expect(shifted("2001-02-29", 1) == nil)
        #expect(shifted("yesterday!", 1) == nil)
        #expect(shifted("2021-01-01T25:00", 1) == nil)
    }

    /// A corpus whose fixturekit.json names the planted store's rules.
    func writeCorpus(_ folder: TemporaryFolder) throws {
        try folder.write("corpus/anonymize.json", PlantedStore.rules)
        try folder.write("corpus/fixturekit.json", """
            {"store": "App.sqlite", "current": "2.0.0", "supported": ["1.0.0"], "stages": [], "anonymize": "anonymize.json"}
            """)
    }
}
