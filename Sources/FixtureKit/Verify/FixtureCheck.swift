import Foundation
import FixtureKitSystem
import FixtureKitModels

/// The checks of a fixture beyond its checksums: its store set against its
/// manifest, and with `deep`, a copy of the store through SQLite.
enum FixtureCheck {
    /// Problems of the fixture in `folder`; none when it has no manifest.json
    /// (a plain folder with SHA256SUMS is checked by its checksums alone).
    static func problems(in folder: String, deep: Bool) -> [VerificationProblem] {
        var contentHash: String?
        return problems(in: folder, deep: deep, contentHash: &contentHash)
    }

    /// ``problems(in:deep:)``, and with `deep`, the store's content hash when it could be computed.
    static func problems(in folder: String, deep: Bool, contentHash: inout String?) -> [VerificationProblem] {
        let manifestPath = folder.appendingPath(Manifest.fileName)
        guard (try? POSIX.lstatIfPresent(manifestPath)) != nil, let bytes = try? POSIX.readFile(manifestPath) else { return [] }
        let manifest: Manifest
        do {
            // A manifest.json that fixturekit did not write is not read.
            guard let ours = try Manifest.decodeIfWrittenByFixtureKit(bytes) else { return [] }
            manifest = ours
        } catch {
            return [VerificationProblem(kind: .malformed, file: Manifest.fileName, detail: "not a fixturekit manifest: \(JSONDecoderFactory.describe(error))")]
        }
        guard manifest.store.isSafeFileName else {
            return [VerificationProblem(kind: .malformed, file: Manifest.fileName, detail: "\"store\" is not a file name: \(manifest.store.escapingControlCharacters())")]
        }
        let storePath = folder.appendingPath(manifest.store)
        guard let set = try? StoreSet(storePath: storePath) else {
            // A missing store is already reported by the checksums.
            return []
        }
        var problems = storeSetProblems(set, manifest: manifest)
        if deep && problems.isEmpty { problems += deepProblems(set, manifest: manifest, contentHash: &contentHash) }
        return problems
    }

    /// Sidecars as the manifest says, a WAL replayable to its last commit, one page size.
    static func storeSetProblems(_ set: StoreSet, manifest: Manifest) -> [VerificationProblem] {
        var problems: [VerificationProblem] = []
        let expected = Set(manifest.sidecars)
        for sidecar in StoreSet.Sidecar.allCases {
            let name = set.fileName(of: sidecar)
            switch (set.has(sidecar), expected.contains(name)) {
            case (true, false):
                problems.append(VerificationProblem(kind: .inconsistent, file: name, detail: "present, but the manifest captured no \(name)"))
            case (false, true):
                problems.append(VerificationProblem(kind: .inconsistent, file: name, detail: "missing: the manifest says it was captured with \(set.storeName)"))
            default:
                break
            }
        }
        guard let inspection = try? StoreInspection(set: set, readContents: false) else {
            return problems + [VerificationProblem(kind: .inconsistent, file: set.storeName, detail: "not an SQLite database")]
        }
        for diagnostic in inspection.diagnostics where diagnostic.severity == .problem {
            problems.append(VerificationProblem(kind: .inconsistent, file: diagnostic.file, detail: diagnostic.detail))
        }
        if inspection.mainFileHeader.pageSize != manifest.sqlite.pageSize {
            problems.append(VerificationProblem(kind: .inconsistent, file: set.storeName, detail: "page size \(inspection.mainFileHeader.pageSize), the manifest says \(manifest.sqlite.pageSize)"))
        }
        if let recorded = manifest.wal, let wal = inspection.wal, wal.problem == nil, wal.commits != recorded.commits {
            let name = set.fileName(of: .wal)
            problems.append(VerificationProblem(
                kind: .inconsistent, file: name,
                detail: "\(StoreInspection.transactions(wal.commits)) to replay, the manifest recorded \(recorded.commits)"))
        }
        return problems
    }

    /// `integrity_check`, `foreign_key_check`, schema hash and row counts, on a copy.
    static func deepProblems(_ set: StoreSet, manifest: Manifest, contentHash: inout String?) -> [VerificationProblem] {
        let name = set.storeName
        let scratch: ScratchStore
        do { scratch = try ScratchStore(copying: set, what: "deep verification") } catch {
            return [VerificationProblem(kind: .corrupt, file: name, detail: error.why)]
        }
        var problems: [VerificationProblem] = []
        do {
            // SQLite's answer about a damaged store is not a function of its
            // bytes: past the damage it reads what the page cache's memory held
            // before, and the same file gave "On tree page 2 cell 15: ..." in one
            // process and SQLITE_CORRUPT from the pragma itself in the next. So a
            // store found corrupt gets one fixed verdict, the same wherever it is
            // read from (a folder, an archive, a pipe), and nothing more is asked
            // of it; `PRAGMA integrity_check` on a copy lists the problems.
            let corrupt = [VerificationProblem(kind: .corrupt, file: name, detail: "integrity_check: the store is corrupt (PRAGMA integrity_check on a copy lists where)")]
            let integrity: [String]
            do { integrity = try scratch.database.rows("PRAGMA integrity_check(1)").compactMap { $0.first?.text } } catch where [11, 26].contains(error.code) {
                return corrupt  // SQLITE_CORRUPT, SQLITE_NOTADB
            }
            if integrity != ["ok"] { return corrupt }
            // A fixture keeps the violations its store had; only a change is a problem.
            let violations = try scratch.database.rows("PRAGMA foreign_key_check")
            let recorded = manifest.schema.foreignKeyViolations ?? 0
            if violations.count != recorded {
                var detail = "foreign_key_check: \(violations.count) \(violations.count == 1 ? "row violates" : "rows violate") a foreign key, the manifest recorded \(recorded)"
                if let first = violations.first { detail += "; first: \(first[0]) rowid \(first[1]) -> \(first[2])" }
                problems.append(VerificationProblem(kind: .corrupt, file: name, detail: detail))
            }
        } catch {
            problems.append(VerificationProblem(kind: .corrupt, file: name, detail: error.description))
            return problems
        }
        let contents: StoreContents
        do { contents = try StoreContents(database: scratch.database) } catch {
            return problems + [VerificationProblem(kind: .corrupt, file: name, detail: error.why)]
        }
        if contents.schemaHash != manifest.schema.hash {
            problems.append(VerificationProblem(kind: .drift, file: name, detail: "schema hash \(contents.schemaHash.prefix(12))…, the manifest says \(manifest.schema.hash.prefix(12))…", expected: manifest.schema.hash, actual: contents.schemaHash))
        }
        for table in Set(contents.tables.keys).union(manifest.tables.keys).sorted() where contents.tables[table] != manifest.tables[table] {
            let actual = contents.tables[table].map { "\($0) rows" } ?? "no table"
            let expected = manifest.tables[table].map { "\($0)" } ?? "no table"
            problems.append(VerificationProblem(kind: .drift, file: name, detail: "table \(table): \(actual), the manifest says \(expected)"))
        }
        do {
            let actual = try ContentHash.digest(of: scratch.database, display: set.storePath, what: "hash").hex
            contentHash = actual
            if let recorded = manifest.contentHash, recorded != actual {
                problems.append(VerificationProblem(kind: .drift, file: name, detail: "content hash \(actual.prefix(12))…, the manifest says \(recorded.prefix(12))…", expected: recorded, actual: actual))
            }
        } catch {
            problems.append(VerificationProblem(kind: .corrupt, file: name, detail: error.why))
        }
        return problems
    }
}
