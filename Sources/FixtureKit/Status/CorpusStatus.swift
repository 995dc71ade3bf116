import FixtureKitSystem
import FixtureKitModels

/// The corpus at a glance: every version that the configuration names or the
/// corpus folder holds, what is there for it, and what is wrong, in plain words.
///
/// Read with ``read(configuration:)``: each fixture folder is verified against its
/// SHA256SUMS (as `verify` does, not `--deep`), each archive is read once without
/// extracting it, and facts come from the manifests. Nothing is written, and no
/// store is opened.
public struct CorpusStatus: Encodable, Equatable, Sendable {
    /// The configuration file, as given.
    public internal(set) var configuration: String
    /// The corpus folder: the configuration's.
    public internal(set) var corpus: String
    /// The store's file name in every fixture: `App.sqlite`.
    public internal(set) var store: String
    public internal(set) var current: String
    /// One per version, in version order.
    public internal(set) var versions: [VersionStatus]
    public internal(set) var problems: [StatusProblem]
    /// What deserves a look but fails nothing, in plain words: fixtures
    /// anonymized with rules other than the corpus' current ones.
    public internal(set) var warnings: [String] = []

    /// No problem was found.
    public var passed: Bool { problems.isEmpty }

    enum CodingKeys: String, CodingKey {
        case ok, configuration, corpus, store, current, versions, problems, warnings
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(passed, forKey: .ok)
        try container.encode(configuration, forKey: .configuration)
        try container.encode(corpus, forKey: .corpus)
        try container.encode(store, forKey: .store)
        try container.encode(current, forKey: .current)
        try container.encode(versions, forKey: .versions)
        try container.encode(problems, forKey: .problems)
        try container.encode(warnings, forKey: .warnings)
    }
}

/// One version's row of ``CorpusStatus``.
public struct VersionStatus: Encodable, Equatable, Sendable {
    /// What the configuration says of the version.
    public enum Support: String, Encodable, Sendable {
        /// `current`: the version the current build ships, the reference schema.
        case current
        /// Listed in `supported`: it must migrate to `current`.
        case supported
        /// Not supported any more, but a stage starts or ends there (its hop still runs).
        case stage
        /// Not named by the configuration at all: a fixture or an archive nobody migrates.
        case unlisted
    }

    /// The version's label, or the fixture folder's name.
    public internal(set) var version: String
    public internal(set) var support: Support
    /// The fixture folder, when there is one.
    public internal(set) var fixture: FixtureStatus?
    /// The archive (`App-1.0.0.tar.zst`), when there is one.
    public internal(set) var archive: ArchiveStatus?
    /// How the fixture was captured and what it holds, from its manifest (the
    /// folder's, else the archive's); `nil` without a manifest fixturekit wrote.
    public internal(set) var facts: FixtureFacts?
    /// The versions the chain of stages goes through to `current`, this one first
    /// (`["1.0.0", "2.0.0", "3.0.0"]`; `["3.0.0"]` for `current`); `nil` when there is
    /// no chain or the version is not migrated.
    public internal(set) var chain: [String]?
    /// Why there is no chain to `current`, for a supported version: `no stage from 2.0.0 (...)`.
    public internal(set) var chainGap: String?

    /// A folder or an archive: the migration runner reads either.
    public var hasFixture: Bool { fixture != nil || archive != nil }
}

/// A fixture folder and its check against its SHA256SUMS.
public struct FixtureStatus: Encodable, Equatable, Sendable {
    public internal(set) var path: String
    /// It passes its SHA256SUMS, and as a store set its manifest (what `verify` checks).
    public internal(set) var verified: Bool
    public internal(set) var verifiedFiles: Int
    public internal(set) var verifiedBytes: UInt64
    public internal(set) var problems: [VerificationProblem]
}

/// An archive of a version, read once without extracting it.
public struct ArchiveStatus: Encodable, Equatable, Sendable {
    /// What the detached checksum `pack` writes beside the archive
    /// (`App-1.0.0.tar.zst.sha256`) says of it.
    public enum ChecksumFile: String, Encodable, Sendable {
        /// It holds the archive's SHA-256.
        case matches
        /// It holds another digest: the archive was replaced, or the file is stale.
        case differs
        /// It is not one `sha256sum` line naming the archive.
        case malformed
        /// There is none.
        case absent
    }

    public internal(set) var path: String
    /// The archive file's SHA-256, as `sha256sum` prints it; `nil` when it cannot be read.
    public var sha256: String?
    public internal(set) var checksumFile: ChecksumFile
    /// It was read to its end and its files match the SHA256SUMS inside it;
    /// `false` also when it could not be read.
    public internal(set) var verified: Bool
    public internal(set) var problems: [VerificationProblem]
    /// Its SHA256SUMS lists the same files with the same digests as the fixture
    /// folder's; `nil` without a folder (or a SHA256SUMS) to compare with.
    public internal(set) var sameAsFolder: Bool?
    /// How it differs from the folder, one file per line: `App.sqlite: other contents`.
    public internal(set) var differences: [String]
}

/// What a manifest says about a fixture.
public struct FixtureFacts: Encodable, Equatable, Sendable {
    /// `snapshot`, `checkpoint` or `raw`.
    public internal(set) var captureMode: String
    /// `App.sqlite-wal`, `App.sqlite-shm`, `.App_SUPPORT`.
    public internal(set) var sidecars: [String]
    public internal(set) var model: ModelIdentity
    /// Every table's rows added up.
    public internal(set) var rows: Int
    /// Every table with its row count, largest first (then by name).
    public internal(set) var tables: [TableRows]
    /// The tables without a row, by name: `migrate` checks no value of theirs
    /// on a path from this version (``UncheckedValues``).
    public internal(set) var emptyTables: [String]
    /// Whether and how the fixture was anonymized, as its manifest records it.
    public internal(set) var anonymization: FixtureAnonymization
}

/// How a fixture was anonymized, from its manifest.
public struct FixtureAnonymization: Encodable, Equatable, Sendable {
    public enum Mode: String, Encodable, Sendable {
        /// The corpus' rules were applied.
        case rules
        /// Declared synthetic: `--no-anonymize`, or `"anonymize": false`.
        case optedOut = "opted-out"
        /// The manifest says nothing: a fixture made before captures required rules or an opt-out.
        case none
    }

    public internal(set) var mode: Mode
    /// SHA-256 of the rules file applied.
    public internal(set) var rules: String?
    /// What tells the key apart (``Manifest/Anonymization/keyCheck``).
    public internal(set) var keyCheck: String?

    /// For people: `rules 1a2b3c4d, key 9f8e7d6c`, `opted out`, `none`.
    public var label: String {
        switch mode {
        case .rules: "rules \((rules ?? "?").prefix(8)), key \((keyCheck ?? "?").prefix(8))"
        case .optedOut: "opted out"
        case .none: "none"
        }
    }

    init(_ recorded: Manifest.Anonymization?) {
        guard let recorded else {
            mode = .none
            return
        }
        mode = recorded.mode == Manifest.Anonymization.optedOutMode ? .optedOut : .rules
        rules = recorded.rules
        keyCheck = recorded.keyCheck
    }

    enum CodingKeys: String, CodingKey { case mode, rules, keyCheck, label }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(mode, forKey: .mode)
        try container.encodeIfPresent(rules, forKey: .rules)
        try container.encodeIfPresent(keyCheck, forKey: .keyCheck)
        try container.encode(label, forKey: .label)
    }
}

/// A table's row count, as the manifest records it.
public struct TableRows: Encodable, Equatable, Sendable {
    public internal(set) var name: String
    public internal(set) var rows: Int
}

/// How a store says which model it holds, and the structural hash of its schema.
///
/// The *declared* identity is what an app's migration code goes by: Core Data's
/// model version checksum (or, without one, its entity version hashes) for a Core
/// Data or SwiftData store, else `PRAGMA user_version` when it is not 0. A store
/// whose user_version is 0 declares nothing (SQLite's default; migrators such as
/// GRDB's keep their own table instead), and its schema hash stands for it.
public struct ModelIdentity: Encodable, Equatable, Sendable {
    public internal(set) var userVersion: Int32
    /// Core Data's `NSStoreModelVersionIdentifiers`, for a Core Data store.
    public internal(set) var coreDataVersionIdentifiers: [String]?
    /// Core Data's `NSStoreModelVersionChecksumKey`.
    public internal(set) var coreDataVersionChecksum: String?
    /// SHA-256 of the structural schema (``SchemaSnapshot``).
    public internal(set) var schemaHash: String
    /// For people: `user_version 2`, `Core Data model "App 2" (checksum 1a2b3c4d5e6f)`, `schema dc1b000f8f4d`.
    public internal(set) var label: String

    init(manifest: Manifest) {
        userVersion = manifest.sqlite.userVersion
        schemaHash = manifest.schema.hash
        coreDataVersionIdentifiers = manifest.model?.versionIdentifiers
        coreDataVersionChecksum = manifest.model?.versionChecksum
        if let model = manifest.model {
            let identifiers = model.versionIdentifiers.filter { !$0.isEmpty }.map { "\"\($0)\"" }.joined(separator: ", ")
            let checksum = model.versionChecksum.map { "checksum \($0.prefix(12))" } ?? "\(model.entityVersionHashes.count) entity hashes"
            label = "Core Data model " + (identifiers.isEmpty ? "" : identifiers + " ") + "(\(checksum))"
        } else if userVersion != 0 {
            label = "user_version \(userVersion)"
        } else {
            label = "schema \(schemaHash.prefix(12))"
        }
        declared = Self.declaredIdentity(manifest)
    }

    /// The declared identity as one comparable string; `nil` when the store declares none.
    let declared: String?

    private static func declaredIdentity(_ manifest: Manifest) -> String? {
        if let model = manifest.model {
            if let checksum = model.versionChecksum { return "coredata checksum " + checksum }
            let hashes = model.entityVersionHashes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "coredata hashes " + hashes.joined(separator: ",")
        }
        return manifest.sqlite.userVersion == 0 ? nil : "user_version \(manifest.sqlite.userVersion)"
    }

    enum CodingKeys: String, CodingKey {
        case userVersion, coreDataVersionIdentifiers, coreDataVersionChecksum, schemaHash, label
    }
}

/// Something wrong with the corpus, in plain words.
public struct StatusProblem: Encodable, Equatable, Sendable {
    public enum Kind: String, Encodable, Sendable {
        /// A version the configuration names (current, supported, or a stage's end)
        /// has neither a fixture folder nor an archive.
        case noFixture = "no-fixture"
        /// A fixture folder or an archive of a version the configuration does not name.
        case notListed = "not-listed"
        /// A fixture folder or an archive fails its SHA256SUMS.
        case doesNotVerify = "does-not-verify"
        /// An archive's SHA256SUMS lists other files or digests than its folder's.
        case archiveDiffers = "archive-differs"
        /// A supported version has no chain of stages to `current`.
        case chainGap = "chain-gap"
        /// Two versions declare the same model identity (see ``ModelIdentity``).
        case sameModelIdentity = "same-model-identity"
        /// Something could not be read at all: an archive refused, a folder that cannot be listed.
        case unreadable
        /// A name in `counts`, `keys` or `changes` that no fixture has: it checks nothing.
        case unknownName = "unknown-name"
        /// The corpus differs from its `fixturekit.lock`: a locked file changed or gone,
        /// a fixture, archive or shipped stage that is not locked.
        case lock
    }

    public internal(set) var kind: Kind
    /// The versions concerned.
    public internal(set) var versions: [String]
    /// The problem in one line of plain words.
    public internal(set) var message: String

    /// Whether the problem is that something could not be read (exit status 2)
    /// rather than a check that failed (exit status 1).
    public var isUnreadable: Bool { kind == .unreadable }
}
