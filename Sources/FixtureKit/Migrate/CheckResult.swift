import FixtureKitModels

/// One check of one migration path (or of an `upgrade`), passed or not.
///
/// What it checked is its ``kind``; its ``name`` is the kind's, as every report
/// prints it. A check that failed says why in ``message``; one that could not
/// run for want of the machine also holds the error that kept it from running
/// (``error``), so that a caller tells a full disk from a regression by value.
public struct CheckResult: Equatable, Sendable {
    /// What the check checks.
    public var kind: CheckKind
    public var passed: Bool
    /// What went wrong, in plain words; each difference on its own line.
    public var message: String?
    /// The statement that failed, when one did.
    public var statement: String?
    /// What it took: for `fixture V verifies`, verifying the fixture (shared by
    /// the paths from V) and copying it for this path; for a stage, the stage;
    /// for `integrity_check`, from its start to its last thread's end (it runs
    /// beside the other checks); for `data preserved`, the value-level diff.
    public var seconds: Double?
    /// For `foreign_key_check`: the rows that violate a foreign key, per table.
    public var foreignKeyViolations: [ForeignKeyViolations]?
    /// For a stage: the settings it ran with (``CorpusConfiguration/appliedConnection(of:)``):
    /// the SQLite settings of fixturekit's connection and the process' `TZ` for
    /// an SQL or Swift stage, the environment of a program.
    public var connection: ConnectionSettings?
    /// For a stage: its statements that did nothing where they stand (`FILE:LINE:
    /// PRAGMA foreign_keys=ON does nothing here: ...`); they fail it with `"strictStages": true`.
    public var warnings: [String]?
    /// What a check that reports several findings found, each at its place and
    /// counted per fixture (``Finding``): the place the kinds ``CheckKind/lint(rule:)``
    /// and ``CheckKind/probe(kind:)`` hold their findings in; ``message`` says them in words.
    public var findings: [Finding]?
    /// The error that kept the check from running, when the machine did: a
    /// ``FileSystemError`` with its errno (a copy of the fixture that could not be
    /// made, a stage's log that could not be created, a program that could not be
    /// started), a ``SQLiteError`` with its result code (`.full`, `.ioError`), a
    /// ``FixtureKitError`` with its cause. `nil` when the check ran, whether it
    /// passed or found the migration wanting. Not in JSON: ``message`` says it in words.
    public var error: (any Error)?

    /// - Parameter error: the error that kept the check from running, when the machine did.
    package init(_ kind: CheckKind, passed: Bool, message: String? = nil, statement: String? = nil, seconds: Double? = nil, error: (any Error)? = nil) {
        (self.kind, self.passed, self.message, self.statement, self.seconds, self.error) = (kind, passed, message, statement, seconds, error)
    }

    /// How the reports name the check (``CheckKind/name``): `fixture 1.0.0 verifies`
    /// (`fixture 1.0.0` when it does not, its message saying why), `stage 1.0.0 -> 2.0.0`,
    /// `integrity_check`, a configured check's name.
    public var name: String { kind.name(passed: passed) }

    /// Whether the check could not run for want of the machine: it holds the ``error``.
    /// Its path could not run (``PathResult/couldNotRun``: exit status 2, not 1).
    public var couldNotRun: Bool { error != nil }

    /// The same outcome: kind, result, message and statement; the time is not
    /// part of it (two runs of one check never take the same time), nor is the
    /// error (errors are not comparable; its words are the message).
    public static func == (lhs: CheckResult, rhs: CheckResult) -> Bool {
        (lhs.kind, lhs.passed, lhs.message, lhs.statement) == (rhs.kind, rhs.passed, rhs.message, rhs.statement)
    }

    /// One thing a check found at one place, counted in each fixture: a lint
    /// rule's hazard at a stage's `FILE:LINE` with the rows it concerns in each
    /// fixture, a probe's difference. The JSON form is the fields' names.
    public struct Finding: Codable, Equatable, Sendable {
        /// What was found, in plain words, on one line.
        public var message: String
        /// The file it is in, as the configuration names it (`migrations/0007.sql`).
        public var file: String?
        /// Its line in ``file``, from 1.
        public var line: Int?
        /// Its column in ``line``, from 1.
        public var column: Int?
        /// The rows or keys it concerns in each fixture, by version: `["1.0.0": 3, "1.2.0": 0]`.
        public var counts: [String: Int]?

        package init(message: String, file: String? = nil, line: Int? = nil, column: Int? = nil, counts: [String: Int]? = nil) {
            (self.message, self.file, self.line, self.column, self.counts) = (message, file, line, column, counts)
        }
    }
}

// MARK: - JSON

/// The JSON form: every field under its name when it has a value, `name` (the
/// reports' name, kept for the readers of earlier reports) beside `kind`.
extension CheckResult: Codable {
    private enum Key: String, CodingKey {
        case kind, name, passed, message, statement, seconds, foreignKeyViolations, connection, warnings, findings
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(try container.decode(CheckKind.self, forKey: .kind), passed: try container.decode(Bool.self, forKey: .passed))
        message = try container.decodeIfPresent(String.self, forKey: .message)
        statement = try container.decodeIfPresent(String.self, forKey: .statement)
        seconds = try container.decodeIfPresent(Double.self, forKey: .seconds)
        foreignKeyViolations = try container.decodeIfPresent([ForeignKeyViolations].self, forKey: .foreignKeyViolations)
        connection = try container.decodeIfPresent(ConnectionSettings.self, forKey: .connection)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
        findings = try container.decodeIfPresent([Finding].self, forKey: .findings)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(name, forKey: .name)
        try container.encode(passed, forKey: .passed)
        try container.encodeIfPresent(message, forKey: .message)
        try container.encodeIfPresent(statement, forKey: .statement)
        try container.encodeIfPresent(seconds, forKey: .seconds)
        try container.encodeIfPresent(foreignKeyViolations, forKey: .foreignKeyViolations)
        try container.encodeIfPresent(connection, forKey: .connection)
        try container.encodeIfPresent(warnings, forKey: .warnings)
        try container.encodeIfPresent(findings, forKey: .findings)
    }
}
