import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitModels

/// What `anonymize` did.
public struct AnonymizationReport: Codable, Equatable, Sendable {
    public struct ColumnChange: Codable, Equatable, Sendable {
        public internal(set) var table: String
        public internal(set) var column: String
        public internal(set) var strategy: String
        /// Rows whose value the rule changed (NULLs and values it leaves as they were aside).
        public internal(set) var rowsChanged: Int
    }

    /// The store or fixture given.
    public internal(set) var input: String
    /// The file or folder written.
    public internal(set) var output: String
    public internal(set) var rules: String
    public internal(set) var rulesSHA256: String
    /// Tells keys apart (see ``Manifest/Anonymization/keyCheck``); not the key.
    public internal(set) var keyCheck: String
    public internal(set) var columns: [ColumnChange]
    /// `table.column` the rules name that the store does not have (a column of a later version).
    public internal(set) var absentColumns: [String]
    /// FTS tables rebuilt from the anonymized text.
    public internal(set) var rebuiltIndexes: [String]
    public internal(set) var leakScan: LeakScanReport
    /// The lines of `fixturekit.lock` rewritten (`--force` on a locked fixture).
    public internal(set) var lock: [LockEdit]? = nil
    /// What the rules kept of the data, in counts (see ``Manifest/DataProfile``).
    public internal(set) var profile: Manifest.DataProfile? = nil
    /// The archives of the fixture's version rebuilt from it (or removed), when it had some.
    public internal(set) var archives: [ArchiveRewrite]? = nil
}

/// `fixturekit anonymize`: a store into a new file, or a fixture folder in place,
/// and the leak scan that proves no replaced value is left in the bytes.
public enum Anonymizer {
    /// The folder beside a store's output where it is built: removed by the
    /// next run when a run is killed.
    static func workFolder(for output: String) -> String { FixtureFolder.stagingPath(for: output) }

    /// Writes an anonymized copy of the store at `input` to `output`.
    ///
    /// The store set (with its `-wal`, `-shm`, hot `-journal`) is copied into a
    /// folder beside `output` and never opened in place; the result is one
    /// checkpointed file (in WAL mode when the store was, without `-wal`),
    /// fsynced, renamed to `output` once the leak scan passed.
    /// - Parameters:
    ///   - force: replace an existing `output` (never the input).
    ///   - keepFailed: a folder where an output the leak scan rejects is kept
    ///     (mode 0600, named like `output`), for inspection.
    /// - Throws: ``FixtureKitError``: exit 1 for a leak (its ``FixtureKitError/report``
    ///   holds the whole ``AnonymizationReport``), 2 for anything that kept the work from being done.
    public static func anonymizeStore(_ input: String, output: String, rulesPath: String, environment: [String: String], force: Bool = false, keepFailed: String? = nil, progress: WorkProgress? = nil) throws(FixtureKitError) -> AnonymizationReport {
        try progress.step("anonymize \(input)") { () throws(FixtureKitError) in
            try anonymizeStore(input, output: output, rulesPath: rulesPath, environment: environment, force: force, keepFailed: keepFailed)
        }
    }

    private static func anonymizeStore(_ input: String, output: String, rulesPath: String, environment: [String: String], force: Bool, keepFailed: String?) throws(FixtureKitError) -> AnonymizationReport {
        let (rules, key) = try load(rulesPath, environment: environment)
        let set = try StoreSet.locate(input)
        do { _ = try set.header() } catch {
            throw FixtureKitError(what: "anonymize", path: input, why: error.why, cause: error)
        }
        if let problem = try outputProblem(output, input: set, force: force) { throw problem }
        let work = workFolder(for: output)
        do throws(FileSystemError) {
            try FixtureFolder.recover(output)
            try POSIX.createFolder(work, mode: 0o700)
        } catch {
            throw FixtureKitError(what: "anonymize", failed: error)
        }
        defer { ScratchFolder.remove(work) }
        let kept = keepFailed.map { (folder: $0, name: String(output.split(separator: "/").last ?? "")) }
        // The output is the store's main file alone: its external data is not part of it.
        let report = try anonymizeCopy(of: set, into: work, rules: rules, key: key, display: input, names: { _ in output }, keepFailed: kept, copySupport: false)
        let built = work.appendingPath(set.storeName)
        try wrap("anonymize: write", output) { () throws(FileSystemError) in
            // A stale sidecar beside the output would be replayed into it.
            for suffix in StoreSet.Sidecar.allCases.map(\.rawValue) where suffix != StoreSet.Sidecar.support.rawValue {
                if try POSIX.lstatIfPresent(output + suffix) != nil { try? POSIX.removeFile(output + suffix) }
            }
            try POSIX.rename(built, output)
            try POSIX.fsyncDirectory(AtomicFile.parentFolder(of: output))
        }
        var final = report
        final.output = output
        return final
    }

    /// Anonymizes a fixture folder: a staging copy beside it is anonymized, its
    /// manifest (with how it was anonymized) and SHA256SUMS rewritten, the leak
    /// scan run on it, and it replaces the fixture in one rename.
    /// - Parameter keepFailed: a folder where a store the leak scan rejects is kept (mode 0600).
    /// - Throws: ``FixtureKitError``: exit 1 when the fixture does not verify or a leak is found.
    public static func anonymizeFixture(_ folder: String, rulesPath: String, environment: [String: String], force: Bool = false, keepFailed: String? = nil, progress: WorkProgress? = nil) throws(FixtureKitError) -> AnonymizationReport {
        try progress.step("anonymize \(folder)") { () throws(FixtureKitError) in
            try anonymizeFixture(folder, rulesPath: rulesPath, environment: environment, force: force, keepFailed: keepFailed)
        }
    }

    private static func anonymizeFixture(_ folder: String, rulesPath: String, environment: [String: String], force: Bool, keepFailed: String?) throws(FixtureKitError) -> AnonymizationReport {
        // A fixture that fixturekit.lock locks is history: rewritten only when told, with its archives.
        _ = try CorpusLock.guardRewrite(of: folder, what: "anonymize", force: force)
        try FixtureReplacement.guardArchives(of: folder, what: "anonymize", force: force)
        let (rules, key) = try load(rulesPath, environment: environment)
        try Verifier.requireVerified(folder, .problemCount(what: "anonymize"))
        let manifestPath = folder.appendingPath(Manifest.fileName)
        let old: Manifest
        do { old = try Manifest.decode(try POSIX.readFile(manifestPath)) } catch {
            throw FixtureKitError(what: "anonymize", path: manifestPath, why: "cannot read the manifest: \(JSONDecoderFactory.describe(error))")
        }
        try checkCorpusKey(AtomicFile.parentFolder(of: folder), key: key, what: "anonymize")
        let set = try StoreSet.locate(folder.appendingPath(old.store))
        let staging: String
        do { staging = try FixtureFolder.prepareStaging(for: folder) } catch {
            throw FixtureKitError(what: "anonymize", failed: error)
        }
        do throws(FixtureKitError) {
            var report = try anonymizeCopy(
                of: set, into: staging, rules: rules, key: key, display: set.storePath, names: { folder.appendingPath($0) },
                keepFailed: keepFailed.map { (folder: $0, name: set.storeName) })
            let staged = staging.appendingPath(set.storeName)
            let inspection = try StoreInspection(set: try StoreSet.locate(staged), readContents: true, access: .ownedFileImmutable, hashContent: true)
            var manifest = try Manifest(version: old.version, mode: old.capture.mode, inspection: inspection)
            manifest.anonymization = record(rules, key: key, report: report)
            try wrap("anonymize: write manifest", staging) { () throws(FileSystemError) in
                try AtomicFile.write(manifest.rendered(), to: staging.appendingPath(Manifest.fileName))
            }
            let sums = try Checksums.writeSums(for: staging)
            // The folder, its archives and its lock lines, in one step.
            let replaced = try FixtureReplacement.replace(
                folder, with: staging, environment: environment, known: Capture.known(old.version, sums: sums, manifest: manifest), what: "anonymize")
            report.input = folder
            report.output = folder
            if !replaced.lock.isEmpty { report.lock = replaced.lock }
            if !replaced.archives.isEmpty { report.archives = replaced.archives }
            return report
        } catch {
            // Once the replacement is decided, the staging folder may be the new fixture: the next run installs it.
            if !FixtureReplacement.isPending(folder) { ScratchFolder.remove(staging) }
            throw error
        }
    }

    // MARK: - Shared steps

    /// Reads the rules and the key they name.
    static func load(_ rulesPath: String, environment: [String: String]) throws(FixtureKitError) -> (AnonymizationRules, AnonymizationKey) {
        let rules = try AnonymizationRules.load(rulesPath)
        let key = try AnonymizationKey(variable: rules.keyEnv, environment: environment, what: "anonymize", path: rulesPath)
        return (rules, key)
    }

    /// Why `output` cannot be written, or `nil`.
    private static func outputProblem(_ output: String, input: StoreSet, force: Bool) throws(FixtureKitError) -> FixtureKitError? {
        guard output.isEmpty == false, !output.hasSuffix("/") else {
            return FixtureKitError(what: "anonymize", path: output, why: "not a file name", category: .usage)
        }
        let existing: FileStatus?
        do { existing = try POSIX.lstatIfPresent(output) } catch {
            return FixtureKitError(what: "anonymize", failed: error)
        }
        if let existing {
            let inputInfo = try? POSIX.lstat(input.storePath)
            if let inputInfo, inputInfo.isSameFile(as: existing) {
                return FixtureKitError(what: "anonymize", path: output, why: "is the input store: anonymize never rewrites a store in place", remedy: .chooseAnotherOutput)
            }
            let members = input.memberNames.map { input.folder.appendingPath($0) }
            for member in members {
                if let info = try? POSIX.lstat(member), info.isSameFile(as: existing) {
                    return FixtureKitError(what: "anonymize", path: output, why: "is a file of the input's store set", remedy: .chooseAnotherOutput)
                }
            }
            guard existing.kind == .regular else {
                return FixtureKitError(what: "anonymize", path: output, why: FileHasher.kindDescription(existing.mode))
            }
            guard force else {
                return FixtureKitError(what: "anonymize", path: output, why: "the file exists", remedy: .replaceExisting)
            }
        }
        return nil
    }

    /// Copies the store set into `folder`, anonymizes it there into one file
    /// named like the store, and runs the leak scan on every file of `folder`.
    /// - Parameter names: how a file of `folder` (relative path) is named in reports.
    /// - Parameter copySupport: copy Core Data's `_SUPPORT` folder too (a fixture's output has it).
    static func anonymizeCopy(of set: StoreSet, into folder: String, rules: AnonymizationRules, key: AnonymizationKey, display: String, names: (String) -> String, keepFailed: (folder: String, name: String)? = nil, copySupport: Bool = true) throws(FixtureKitError) -> AnonymizationReport {
        let raw = folder.appendingPath(".fixturekit-raw")
        try wrap("anonymize: copy", set.storePath) { () throws(FileSystemError) in
            try POSIX.createFolder(raw, mode: 0o700)
            for name in set.memberNames where name != set.fileName(of: .support) {
                try FileCopy.copy(from: set.folder.appendingPath(name), to: raw.appendingPath(name), sync: false)
            }
            if copySupport, set.has(.support), try POSIX.lstatIfPresent(folder.appendingPath(set.fileName(of: .support))) == nil {
                try FileCopy.copyFolder(from: set.path(of: .support), to: folder.appendingPath(set.fileName(of: .support)))
            }
        }
        defer { ScratchFolder.remove(raw) }
        let pristine = (folder: set.folder, names: set.memberNames.filter { $0 != set.fileName(of: .support) })
        return try anonymizeInPlace(raw: raw, into: folder, storeName: set.storeName, rules: rules, key: key, display: display, names: names, pristine: pristine, keepFailed: keepFailed)
    }

    /// Anonymizes the store set in `raw` into `folder/storeName`, then scans every file of `folder`.
    /// - Parameters:
    ///   - pristine: the store set's files where they were copied from,
    ///     never opened, for ``KeyedPrefetch``.
    ///   - keepFailed: where the store is kept, and under which name, when the leak scan rejects it.
    static func anonymizeInPlace(raw: String, into folder: String, storeName: String, rules: AnonymizationRules, key: AnonymizationKey, display: String, names: (String) -> String, pristine: (folder: String, names: [String])? = nil, keepFailed: (folder: String, name: String)? = nil) throws(FixtureKitError) -> AnonymizationReport {
        let output = folder.appendingPath(storeName)
        let result = try AnonymizationEngine.run(folder: raw, storeName: storeName, output: output, rules: rules, key: key, spoolFolder: raw, display: display, pristine: pristine)
        ScratchFolder.remove(raw)
        // The output is synced on another thread while the leak scan reads it.
        let sync = BackgroundStage()
        sync.start { try POSIX.fsyncFile(output) }
        defer { sync.drain() }
        let items: [FolderItem]
        do { items = try FolderListing.items(below: folder) } catch {
            throw FixtureKitError(what: "anonymize", failed: error)
        }
        let files = items.map { (path: folder.appendingPath($0.path.description), name: names($0.path.description)) }
        let scan: LeakScanReport
        do {
            scan = try result.leakScan.finish(LeakScan.Target(files: files, store: output, utf16: result.isUTF16, columns: result.ruleNames))
        } catch {
            throw error.within("anonymize")
        }
        var report = AnonymizationReport(
            input: display, output: folder, rules: rules.path, rulesSHA256: rules.sha256, keyCheck: key.keyCheck,
            columns: result.columns, absentColumns: result.absent, rebuiltIndexes: result.rebuiltIndexes, leakScan: scan,
            profile: result.profile)
        if let hit = scan.hits.first {
            report.output = names(storeName)
            sync.drain()
            var hint = Self.hint(for: hit)
            if let keepFailed {
                let kept = keepFailed.folder.appendingPath(keepFailed.name)
                try wrap("anonymize: keep the rejected output", kept) { () throws(FileSystemError) in
                    try keepRejected(output, as: kept)
                }
                hint += "; the rejected store is kept in \(kept)"
            }
            let more = scan.hitCount > 1 ? " (and \(scan.hitCount - 1) more)" : ""
            var error = FixtureKitError(what: "anonymize: leak scan", path: hit.file, why: hit.summary + more, hint: hint, category: .checkFailed, code: .leakFound)
            error.report = CanonicalJSON.file(report)
            throw error
        }
        try wrap("anonymize: sync", output) { () throws(FileSystemError) in
            do { try sync.wait() } catch let error as FileSystemError { throw error } catch {
                throw FileSystemError("fsync", path: output, message: "\(error)")
            }
        }
        return report
    }

    /// What was found, with the bytes around it, and what helps, by where it was found.
    static func hint(for hit: LeakHit) -> String {
        let found = hit.surroundings.map { $0 + "; " } ?? ""
        if let foundIn = hit.foundIn { return found + "give \(foundIn) a rule too" }
        if hit.page == nil { return found + "a file of the store set holds it (Core Data's external data): give its attribute a rule, or leave the file out" }
        if hit.pageType?.hasPrefix("index") == true { return found + "an index on expressions holds it: give the columns it is computed from a rule" }
        return found + FixtureKitError.Remedy.keepRejectedOutput.text
    }

    /// Moves (or, across file systems, copies) a rejected store to `path`,
    /// readable by its owner only, under a temporary name first.
    static func keepRejected(_ store: String, as path: String) throws(FileSystemError) {
        let folder = AtomicFile.parentFolder(of: path)
        try POSIX.createFolder(folder, mode: 0o700, existing: true)
        let temporary = AtomicFile.temporaryPath(for: path)
        try? POSIX.removeFile(temporary)
        do throws(FileSystemError) {
            try POSIX.rename(store, temporary)
        } catch {
            guard error.code == .crossDevice else { throw FileSystemError("rename", path: temporary, errno: error.errno) }
            try FileCopy.copy(from: store, to: temporary, sync: false)
        }
        try POSIX.setPermissions(temporary, 0o600)
        try POSIX.fsyncFile(temporary)
        try POSIX.rename(temporary, path)
        try POSIX.fsyncDirectory(folder)
    }

    /// What the manifest records of a run.
    static func record(_ rules: AnonymizationRules, key: AnonymizationKey, report: AnonymizationReport) -> Manifest.Anonymization {
        let absent = Set(report.absentColumns)
        var columns: [String: String] = [:]
        for (table, column, rule) in rules.orderedRules where !absent.contains("\(table).\(column)") {
            columns["\(table).\(column)"] = rule.strategy.name
        }
        return Manifest.Anonymization(mode: Manifest.Anonymization.rulesMode, rules: rules.sha256, keyCheck: key.keyCheck, columns: columns, profile: report.profile)
    }

    /// Refuses a key other than the one the corpus' fixtures were anonymized with:
    /// their pseudonyms would not match across versions.
    static func checkCorpusKey(_ corpus: String, key: AnonymizationKey, what: String) throws(FixtureKitError) {
        guard let names = try? POSIX.listDirectory(corpus) else { return }
        for name in names.map({ String(pathBytes: $0) }).sorted() where !name.hasPrefix(".") {
            let manifestPath = corpus.appendingPath(name).appendingPath(Manifest.fileName)
            guard (try? POSIX.lstatIfPresent(manifestPath)) != nil, let bytes = try? POSIX.readFile(manifestPath),
                  let manifest = try? Manifest.decode(bytes), let recorded = manifest.anonymization?.keyCheck else { continue }
            if recorded != key.keyCheck {
                throw FixtureKitError(
                    what: what, path: manifestPath,
                    why: "the key is not the one this fixture was anonymized with (key check \(recorded), the key gives \(key.keyCheck))",
                    hint: "use the corpus' key: pseudonyms must match across versions")
            }
        }
    }
}
