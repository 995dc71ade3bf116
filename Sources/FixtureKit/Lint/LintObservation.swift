import FixtureKitModels

/// What one fixture's run showed of one rule at one place: the lint's raw
/// material, gathered into ``LintFinding``s across the fixtures.
struct LintObservation: Sendable {
    var rule: LintRule
    /// The stage file, as the configuration names it; its line from 1.
    var file: String?
    var line: Int?
    /// What was found, in words that do not depend on the fixture: the findings
    /// of several fixtures at one place are one finding when they say the same.
    var subject: String
    /// What this fixture holds of it (`'a@x' (2 rows)`), when it says more.
    var detail: String?
    /// The rows, keys or ids it concerns in this fixture.
    var count: Int?
}

/// A place of a stage: a file and a line.
struct StagePlace: Hashable, Sendable {
    var file: String
    var line: Int
}
