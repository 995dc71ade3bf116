import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

extension CorpusStatus {
    /// Reads the configuration at `path`, then the status of its corpus.
    /// - Throws: ``FixtureKitError`` when the configuration or the corpus folder
    ///   cannot be read; everything wrong inside the corpus is a ``StatusProblem``.
    public static func read(config path: String) throws(FixtureKitError) -> CorpusStatus {
        try read(configuration: CorpusConfiguration.load(path), path: path)
    }

    /// The status of the corpus `configuration` describes (read from `path`).
    ///
    /// The versions are those the configuration names (`current`, `supported`, each
    /// stage's ends) and those the corpus holds (fixture folders, as `verify` finds
    /// them, and archives named as `pack` names them, `App-1.0.0.tar.zst`), in
    /// version order. Each fixture folder is verified against its SHA256SUMS (not
    /// `--deep`); each archive is read once, without extracting it, against the
    /// SHA256SUMS inside it, which is then compared with its folder's.
    /// - Throws: ``FixtureKitError`` when the corpus folder cannot be listed.
    package static func read(configuration: CorpusConfiguration, path: String) throws(FixtureKitError) -> CorpusStatus {
        let corpus = configuration.folder
        let folders: [String]
        do { folders = try Verifier.fixtureFolders(in: corpus) } catch {
            throw FixtureKitError(what: "status: read corpus", path: error.path, why: error.why, cause: error)
        }
        let archiveVersions = Verifier.archiveFiles(in: corpus).compactMap(configuration.archiveVersion(fileName:))
        let stageEnds = Set(configuration.stages.flatMap { [$0.from, $0.to] })
        let named = [configuration.current] + configuration.supported + configuration.stages.flatMap { [$0.from, $0.to] }
        var labels: [String] = []
        for label in named + folders + archiveVersions where !labels.contains(label) { labels.append(label) }
        labels.sort(by: versionOrder)

        var reader = StatusReader(configuration: configuration, folders: Set(folders), stageEnds: stageEnds)
        let versions = labels.map { reader.row(for: $0) }
        let unknownNames = configuration.fixtureTables().map { configuration.unknownTableNames(among: $0) } ?? []
        var problems = reader.problems + modelIdentityProblems(versions, configuration: configuration)
            + unknownNames.map { StatusProblem(kind: .unknownName, versions: [], message: "configuration: " + $0) }
        // The lock against the corpus as a whole (each folder and archive was checked against its own lines).
        for problem in LockCheck.corpusResult(corpus)?.problems ?? [] {
            problems.append(StatusProblem(kind: .lock, versions: [], message: "\(configuration.resolve(problem.file)): \(problem.summary)"))
        }
        return CorpusStatus(
            configuration: path, corpus: corpus, store: configuration.store, current: configuration.current,
            versions: versions, problems: problems, warnings: rulesWarnings(versions, configuration: configuration))
    }

    /// A warning when the fixtures were anonymized with rules other than the
    /// corpus' current rules file, or (without one) with several: a fixture
    /// frozen under older rules may keep a column that newer rules rewrite.
    static func rulesWarnings(_ versions: [VersionStatus], configuration: CorpusConfiguration) -> [String] {
        let recorded = versions.compactMap { row -> (version: String, rules: String)? in
            guard let facts = row.facts, facts.anonymization.mode == .rules else { return nil }
            return (row.version, facts.anonymization.rules ?? "?")
        }
        func listed(_ rows: [(version: String, rules: String)]) -> String {
            rows.map { "\($0.version) (rules \($0.rules.prefix(8)))" }.joined(separator: ", ")
        }
        if let file = configuration.anonymize?.rulesFile, let rules = try? AnonymizationRules.load(configuration.resolve(file)) {
            let stale = recorded.filter { $0.rules != rules.sha256 }
            guard !stale.isEmpty else { return [] }
            return ["\(listed(stale)) \(stale.count == 1 ? "was" : "were") anonymized with rules other than \(configuration.resolve(file)) (rules \(rules.sha256.prefix(8))): a column the current rules rewrite may be as it was there (hint: anonymize \(stale.count == 1 ? "it" : "each") again with the current rules, or freeze \(stale.count == 1 ? "it" : "them") again)"]
        }
        guard Set(recorded.map(\.rules)).count > 1 else { return [] }
        return ["the fixtures were anonymized with \(Set(recorded.map(\.rules)).count) different rules files: \(listed(recorded))"]
    }

    /// Version order; names that are not versions last, bytewise (as `verify` orders folders).
    static func versionOrder(_ lhs: String, _ rhs: String) -> Bool {
        switch (Version(lhs), Version(rhs)) {
        case let (left?, right?): left < right
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        }
    }
}

/// Builds the rows of a ``CorpusStatus`` one version at a time, collecting the
/// problems in the order of the rows.
private struct StatusReader {
    let configuration: CorpusConfiguration
    /// The fixture folders of the corpus, by name.
    let folders: Set<String>
    let stageEnds: Set<String>
    var problems: [StatusProblem] = []

    init(configuration: CorpusConfiguration, folders: Set<String>, stageEnds: Set<String>) {
        self.configuration = configuration
        self.folders = folders
        self.stageEnds = stageEnds
    }

    mutating func row(for version: String) -> VersionStatus {
        let support: VersionStatus.Support =
            version == configuration.current ? .current
            : configuration.supported.contains(version) ? .supported
            : stageEnds.contains(version) ? .stage : .unlisted
        var row = VersionStatus(version: version, support: support)
        let folder = configuration.resolve(version)
        var manifest: Manifest?
        if folders.contains(version) {
            row.fixture = fixture(folder, version: version)
            manifest = Self.manifest(try? POSIX.readFile(folder.appendingPath(Manifest.fileName), limit: MetadataSink.manifestLimit))
        }
        if Version(version) != nil, let archive = configuration.archivePath(of: version) {
            let (status, archiveManifest) = self.archive(archive, version: version, folder: row.fixture == nil ? nil : folder)
            row.archive = status
            manifest = manifest ?? Self.manifest(archiveManifest)
        }
        row.facts = manifest.map(FixtureFacts.init)
        checkListing(row, folder: folder)
        chain(&row)
        return row
    }

    // MARK: - Fixture and archive

    private mutating func fixture(_ folder: String, version: String) -> FixtureStatus {
        do {
            let result = try Verifier.verifyFixture(folder, deep: false, threads: nil)
            if !result.passed {
                problems.append(StatusProblem(
                    kind: .doesNotVerify, versions: [version],
                    message: "fixture \(version) does not verify: \(FixtureArchive.summary(of: result.problems)) (hint: \(FixtureKitError.Remedy.verify(path: folder, nothingChanged: false).text))"))
            }
            return FixtureStatus(
                path: folder, verified: result.passed, verifiedFiles: result.verifiedFiles,
                verifiedBytes: result.verifiedBytes, problems: result.problems)
        } catch {
            problems.append(StatusProblem(kind: .unreadable, versions: [version], message: "fixture \(version) cannot be read: \(error.description)"))
            return FixtureStatus(path: folder, verified: false, verifiedFiles: 0, verifiedBytes: 0, problems: [])
        }
    }

    /// The archive's digest, its check, and its comparison with `folder`'s SHA256SUMS.
    /// - Returns: the status, and the archive's manifest.json bytes when it holds one.
    private mutating func archive(_ path: String, version: String, folder: String?) -> (ArchiveStatus, [UInt8]?) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let (sha256, checksumFile) = digest(of: path, name: name, version: version)
        var status = ArchiveStatus(path: path, sha256: sha256, checksumFile: checksumFile, verified: false, problems: [], differences: [])
        let metadata: ArchiveMetadata
        do {
            metadata = try ArchiveMetadata.read(path, what: "status")
        } catch {
            problems.append(StatusProblem(kind: .unreadable, versions: [version], message: "archive \(name) cannot be read: \(error.why)"))
            return (status, nil)
        }
        let verification = metadata.contents.verification
        status.verified = verification.passed
        status.problems = verification.problems
        if !verification.passed {
            problems.append(StatusProblem(
                kind: .doesNotVerify, versions: [version],
                message: "archive \(name) does not verify: \(FixtureArchive.summary(of: verification.problems)) (hint: \(FixtureKitError.Remedy.verify(path: path, nothingChanged: false).text))"))
        }
        for problem in LockCheck.archiveProblems(path, digest: sha256.flatMap { SHA256Digest(hex: $0) }, sumsBytes: metadata.sumsBytes, deep: false) {
            problems.append(StatusProblem(kind: .lock, versions: [version], message: "archive \(name): \(problem.summary)"))
        }
        if let folder, let bytes = try? POSIX.readFile(folder.appendingPath(SHA256Sums.fileName), limit: ArchiveScanner.maxSumsSize) {
            let differences = Self.differences(folder: SHA256Sums(parsing: bytes), archive: metadata.sums)
            status.sameAsFolder = differences.isEmpty
            status.differences = differences
            if !differences.isEmpty {
                var shown = differences.prefix(3).joined(separator: "; ")
                if differences.count > 3 { shown += "; and \(differences.count - 3) more" }
                problems.append(StatusProblem(kind: .archiveDiffers, versions: [version], message: "archive \(name) differs from its folder \(folder): \(shown)"))
            }
        }
        return (status, metadata.manifest)
    }

    /// The archive's SHA-256, from its bytes, and what its detached checksum says.
    ///
    /// The archive is hashed even when `pack`'s `App-1.0.0.tar.zst.sha256` is beside
    /// it: reading the compressed file once more costs little next to the scan that
    /// decompresses it, and a status must not show a stale file's digest as the
    /// archive's. A detached checksum that differs or is not one line naming the
    /// archive is a problem.
    private mutating func digest(of path: String, name: String, version: String) -> (String?, ArchiveStatus.ChecksumFile) {
        let actual = (try? FileHasher()).flatMap { try? $0.digest(ofFileAt: path) }?.digest.hex
        let checksumFile = path + FixtureArchive.checksumSuffix
        guard let bytes = try? POSIX.readFile(checksumFile, limit: 1 << 16) else { return (actual, .absent) }
        let sums = SHA256Sums(parsing: bytes)
        guard sums.problems.isEmpty, sums.entries.count == 1, sums.entries[0].path.description == name else {
            problems.append(StatusProblem(
                kind: .doesNotVerify, versions: [version],
                message: "\(name)\(FixtureArchive.checksumSuffix) is not one checksum line for \(name) (hint: \(FixtureKitError.Remedy.packWritesChecksumFile.text))"))
            return (actual, .malformed)
        }
        let listed = sums.entries[0].digest.hex
        guard let actual, actual != listed else { return (actual, .matches) }
        problems.append(StatusProblem(
            kind: .doesNotVerify, versions: [version],
            message: "\(name)\(FixtureArchive.checksumSuffix) does not match the archive: it says \(listed.prefix(12))..., the archive's bytes hash to \(actual.prefix(12))..."))
        return (actual, .differs)
    }

    /// How an archive's SHA256SUMS differs from its folder's (``LockCheck/differences(folder:archive:)``).
    static func differences(folder: SHA256Sums, archive: SHA256Sums) -> [String] {
        LockCheck.differences(folder: folder, archive: archive)
    }

    /// A manifest fixturekit wrote, or `nil`.
    private static func manifest(_ bytes: [UInt8]?) -> Manifest? {
        guard let bytes else { return nil }
        return (try? Manifest.decodeIfWrittenByFixtureKit(bytes)) ?? nil
    }

    // MARK: - The configuration

    /// A named version without a fixture, a fixture nobody names.
    private mutating func checkListing(_ row: VersionStatus, folder: String) {
        let version = row.version
        switch row.support {
        case .unlisted:
            let paths = [row.fixture?.path, row.archive?.path].compactMap { $0 }.joined(separator: " and ")
            problems.append(StatusProblem(
                kind: .notListed, versions: [version],
                message: "fixture \(version) is not listed in the configuration: no path migrates it (add it to \"supported\", or remove \(paths))"))
        case _ where !row.hasFixture:
            let role = switch row.support {
            case .current: "current version \(version)"
            case .supported: "supported version \(version)"
            default: "version \(version) (a stage starts or ends there)"
            }
            let archive = configuration.resolve(configuration.archiveStem(of: version) + ArchiveFormat.default.suffix)
            problems.append(StatusProblem(
                kind: .noFixture, versions: [version],
                message: "\(role) has no fixture: neither \(folder) nor \(archive) exists (hint: \(FixtureKitError.Remedy.freezeFixture.text))"))
        default:
            break
        }
    }

    /// The chain of stages to `current`; a supported version without one is a problem.
    private mutating func chain(_ row: inout VersionStatus) {
        let current = configuration.current
        switch row.support {
        case .current:
            row.chain = [current]
        case .supported, .stage:
            guard let version = Version(row.version), let end = Version(current), version < end else { return }
            let (stages, gap) = configuration.chainOfStages(from: row.version, to: current)
            if let gap {
                guard row.support == .supported else { return }
                row.chainGap = gap
                problems.append(StatusProblem(
                    kind: .chainGap, versions: [row.version],
                    message: "supported version \(row.version) has no chain of stages to \(current): \(gap)"))
            } else {
                row.chain = [row.version] + stages.map(\.to)
            }
        case .unlisted:
            break
        }
    }
}

extension CorpusStatus {
    /// Two versions or more with the same model identity.
    ///
    /// Versions are grouped by their declared identity (``ModelIdentity``: Core
    /// Data's model checksum, else a non-zero user_version), or by their schema hash
    /// when they declare none. In a group of two versions or more:
    /// - different schemas: the identity an app migrates by no longer tells them
    ///   apart: someone modified a shipped schema, or forgot to bump the identity;
    /// - one schema: nothing tells the versions apart at all, although the plan
    ///   treats them as two models: someone forgot to bump the identity (a data
    ///   migration needs a bump too), or both fixtures come from one build.
    ///
    /// One schema is no problem when no stage lies between the versions
    /// (``CorpusConfiguration/stageLiesBetween(_:_:)``): patch releases that did
    /// not touch the store share their schema version.
    static func modelIdentityProblems(_ versions: [VersionStatus], configuration: CorpusConfiguration) -> [StatusProblem] {
        var groups: [String: [(version: String, model: ModelIdentity)]] = [:]
        var order: [String] = []
        for row in versions {
            guard let model = row.facts?.model else { continue }
            let key = model.declared ?? "schema " + model.schemaHash
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append((row.version, model))
        }
        return order.compactMap { key -> StatusProblem? in
            guard let group = groups[key], group.count > 1, let first = group.first?.model else { return nil }
            let names = group.map(\.version)
            let listed = names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
            let bump = first.coreDataVersionChecksum != nil || first.coreDataVersionIdentifiers != nil ? "the model version" : "user_version"
            let sameSchema = Set(group.map(\.model.schemaHash)).count == 1
            let sorted = names.compactMap(Version.init).sorted()
            if sameSchema, let low = sorted.first, let high = sorted.last, !configuration.stageLiesBetween(low.label, high.label) { return nil }
            let message: String
            if first.declared == nil {
                message = "\(listed) have the same model identity (schema \(first.schemaHash.prefix(12)), user_version 0): someone forgot to bump user_version, or captured them from one build"
            } else if Set(group.map(\.model.schemaHash)).count > 1 {
                message = "\(listed) have the same model identity (\(first.label)) but different schemas: someone modified a shipped schema, or forgot to bump \(bump)"
            } else {
                message = "\(listed) have the same model identity (\(first.label)) and the same schema: someone forgot to bump \(bump), or captured them from one build"
            }
            return StatusProblem(kind: .sameModelIdentity, versions: names, message: message)
        }
    }
}

extension FixtureFacts {
    init(_ manifest: Manifest) {
        captureMode = manifest.capture.mode
        sidecars = manifest.sidecars
        model = ModelIdentity(manifest: manifest)
        rows = manifest.tables.values.reduce(0, +)
        tables = manifest.tables.map { TableRows(name: $0.key, rows: $0.value) }.sorted { lhs, rhs in
            lhs.rows != rhs.rows ? lhs.rows > rhs.rows : lhs.name.utf8.lexicographicallyPrecedes(rhs.name.utf8)
        }
        emptyTables = manifest.tables.filter { $0.value == 0 }.map(\.key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        anonymization = FixtureAnonymization(manifest.anonymization)
    }
}
