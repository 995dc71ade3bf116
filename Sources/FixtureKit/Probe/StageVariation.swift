/// What a probe changes in the way ``StageRunner`` runs a stage; nothing by default.
struct StageVariation {
    /// The variable a program stage is given under the `order` probe, set to
    /// `1`: its own SQLite connection honours it by running `PRAGMA
    /// reverse_unordered_selects = ON` after it opens the store (fixturekit
    /// cannot set a setting on a connection it does not open).
    static let reverseOrderVariable = "FIXTUREKIT_REVERSE_UNORDERED_SELECTS"

    /// `PRAGMA reverse_unordered_selects = ON` on the SQL stages' connection;
    /// ``reverseOrderVariable`` in a program's environment and a Swift stage's
    /// ``SwiftStage/Context/connection``.
    var reverseUnorderedSelects = false
    /// The `TZ` of a program stage. An SQL or Swift stage runs in fixturekit's
    /// own process: its zone is the ``ZoneLease`` the run holds.
    var timeZone: String?
    /// The `LC_ALL` of a program stage. SQL and Swift stages run in
    /// fixturekit's own process, whose locale is not changed: SQLite's own
    /// functions and collations do not read it.
    var locale: String?
    /// Only the first files of a folder stage: the stage stopped after that
    /// many commits.
    var files: Int?
    /// A program stage killed with SIGKILL once this many of its commits are
    /// seen (``CommitWatch``), as a crash or the system would kill the app.
    var killAtCommit: Int?
    /// A program stage's commits are counted while it runs (``StageRunner/commitsObserved``).
    var countsCommits = false

    /// The variables a program or Swift stage gets on top of its declared environment.
    var environment: [String: String] {
        var variables: [String: String] = [:]
        if reverseUnorderedSelects { variables[Self.reverseOrderVariable] = "1" }
        if let timeZone { variables["TZ"] = timeZone }
        if let locale { variables["LC_ALL"] = locale }
        return variables
    }
}
