/// What a check checks: the kind of a ``CheckResult``. Every report names,
/// orders and groups checks by their kind (never by their name's text): the
/// summary's `time:` line, the HTML grid's columns, JUnit's testcases.
///
/// `migrate` and `upgrade` check with the same kinds. New kinds are added as
/// fixturekit learns new checks: a `switch` over them needs a `default`.
///
/// In JSON (``CheckResult`` in `migrate --json`, `upgrade --json`, a kept path's
/// `checks.json`) a kind is an object: `type`, the case's name, and its values
/// under their labels, `{"type": "stage", "from": "1.0.0", "to": "2.0.0"}`,
/// `{"type": "integrity"}`, `{"type": "configured", "name": "no orphan notes"}`,
/// `{"type": "probe", "probe": "order"}`.
public enum CheckKind: Hashable, Sendable {
    // MARK: The source fixture

    /// The source fixture verifies (its SHA256SUMS, its store set, its lock), and
    /// its contents were read: `fixture 1.0.0 verifies`.
    case fixtureVerifies(version: String)
    /// The verified fixture was copied for the path: `copy fixture 1.0.0`.
    case copyFixture(version: String)

    // MARK: The stages

    /// The plan has a stage for every step to the path's target: `chain of stages to 3.0.0`.
    case chainOfStages(to: String)
    /// One stage ran: `stage 1.0.0 -> 2.0.0`.
    case stage(from: String, to: String)

    // MARK: The migrated store

    /// The migrated copy opens: `open the migrated store`.
    case openMigratedStore
    /// The migrated store's schema and row counts can be read: `read the migrated store`.
    case readMigratedStore
    /// `upgrade` takes the live store's exclusive lock again after a program
    /// stage: `lock the store after the stages`.
    case lockMigratedStore
    /// `PRAGMA integrity_check`: `integrity_check`.
    case integrity
    /// `PRAGMA foreign_key_check`: `foreign_key_check`.
    case foreignKeys
    /// `PRAGMA user_version` is the target fixture's: `user_version`.
    case userVersion
    /// `upgrade`: the store reads as the target version (`userVersions`,
    /// `versionQuery`): `version 3.0.0`.
    case version(target: String)
    /// The structural schema is the target fixture's: `schema matches 3.0.0`.
    case schema(target: String)
    /// No table's row count changed that the configuration does not let change: `row counts`.
    case rowCounts
    /// Every value is still there, by key: `data preserved`.
    case dataPreserved
    /// One of the configuration's own checks, by its name.
    case configured(name: String)
    /// `upgrade` as a whole: what stands for its failure when it was interrupted: `upgrade`.
    case upgrade

    // MARK: Reserved

    /// A lint rule, by its stable code (`lint U001`): a hazard of a stage found
    /// on the fixtures before it runs. Its result lists what it found as
    /// ``CheckResult/findings``, each at a `FILE:LINE` and counted per fixture.
    case lint(rule: String)
    /// A probe of a stage, by its kind (`probe order`): the stage run again under
    /// other conditions. Its result says what the probe took (``CheckResult/seconds``)
    /// and what it found (``CheckResult/findings``).
    case probe(kind: String)

    /// How the reports name a check of this kind: `stage 1.0.0 -> 2.0.0`,
    /// `integrity_check`, a configured check's own name.
    public var name: String {
        switch self {
        case .fixtureVerifies(let version): "fixture \(version) verifies"
        case .copyFixture(let version): "copy fixture \(version)"
        case .chainOfStages(let target): "chain of stages to \(target)"
        case .stage(let from, let to): "stage \(from) -> \(to)"
        case .openMigratedStore: "open the migrated store"
        case .readMigratedStore: "read the migrated store"
        case .lockMigratedStore: "lock the store after the stages"
        case .integrity: "integrity_check"
        case .foreignKeys: "foreign_key_check"
        case .userVersion: "user_version"
        case .version(let target): "version \(target)"
        case .schema(let target): "schema matches \(target)"
        case .rowCounts: "row counts"
        case .dataPreserved: "data preserved"
        case .configured(let name): name
        case .upgrade: "upgrade"
        case .lint(let rule): "lint \(rule)"
        case .probe(let kind): "probe \(kind)"
        }
    }

    /// Whether it is one stage's check (``stage(from:to:)``): the reports count a path's stages by it.
    package var isStage: Bool {
        if case .stage = self { return true }
        return false
    }

    /// The name of a check of this kind that did not pass: a fixture that does
    /// not verify is `fixture 1.0.0`, its message saying why; the others keep their name.
    func name(passed: Bool) -> String {
        guard !passed, case .fixtureVerifies(let version) = self else { return name }
        return "fixture \(version)"
    }
}

// MARK: - JSON

extension CheckKind: Codable {
    /// The `type` of each kind in JSON: the case's name.
    enum Tag: String, CaseIterable, Codable {
        case fixtureVerifies, copyFixture, chainOfStages, stage, openMigratedStore, readMigratedStore, lockMigratedStore
        case integrity, foreignKeys, userVersion, version, schema, rowCounts, dataPreserved, configured, upgrade, lint, probe
    }

    private enum Key: String, CodingKey {
        case type, version, from, to, target, name, rule, probe
    }

    var tag: Tag {
        switch self {
        case .fixtureVerifies: .fixtureVerifies
        case .copyFixture: .copyFixture
        case .chainOfStages: .chainOfStages
        case .stage: .stage
        case .openMigratedStore: .openMigratedStore
        case .readMigratedStore: .readMigratedStore
        case .lockMigratedStore: .lockMigratedStore
        case .integrity: .integrity
        case .foreignKeys: .foreignKeys
        case .userVersion: .userVersion
        case .version: .version
        case .schema: .schema
        case .rowCounts: .rowCounts
        case .dataPreserved: .dataPreserved
        case .configured: .configured
        case .upgrade: .upgrade
        case .lint: .lint
        case .probe: .probe
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func value(_ key: Key) throws -> String { try container.decode(String.self, forKey: key) }
        switch try container.decode(Tag.self, forKey: .type) {
        case .fixtureVerifies: self = .fixtureVerifies(version: try value(.version))
        case .copyFixture: self = .copyFixture(version: try value(.version))
        case .chainOfStages: self = .chainOfStages(to: try value(.to))
        case .stage: self = .stage(from: try value(.from), to: try value(.to))
        case .openMigratedStore: self = .openMigratedStore
        case .readMigratedStore: self = .readMigratedStore
        case .lockMigratedStore: self = .lockMigratedStore
        case .integrity: self = .integrity
        case .foreignKeys: self = .foreignKeys
        case .userVersion: self = .userVersion
        case .version: self = .version(target: try value(.target))
        case .schema: self = .schema(target: try value(.target))
        case .rowCounts: self = .rowCounts
        case .dataPreserved: self = .dataPreserved
        case .configured: self = .configured(name: try value(.name))
        case .upgrade: self = .upgrade
        case .lint: self = .lint(rule: try value(.rule))
        case .probe: self = .probe(kind: try value(.probe))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tag, forKey: .type)
        switch self {
        case .fixtureVerifies(let version), .copyFixture(let version):
            try container.encode(version, forKey: .version)
        case .chainOfStages(let to):
            try container.encode(to, forKey: .to)
        case .stage(let from, let to):
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
        case .version(let target), .schema(let target):
            try container.encode(target, forKey: .target)
        case .configured(let name):
            try container.encode(name, forKey: .name)
        case .lint(let rule):
            try container.encode(rule, forKey: .rule)
        case .probe(let kind):
            try container.encode(kind, forKey: .probe)
        case .openMigratedStore, .readMigratedStore, .lockMigratedStore, .integrity, .foreignKeys, .userVersion, .rowCounts, .dataPreserved, .upgrade:
            break
        }
    }
}
