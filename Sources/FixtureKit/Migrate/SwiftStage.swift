import FixtureKitModels

/// A migration stage written in Swift: an app's own migration code (GRDB's
/// `DatabaseMigrator`, SQLite.swift, plain SQLite) run by its own tests over the
/// whole matrix, with every check.
///
/// The configuration names it (`{"from": "1.0.0", "to": "2.0.0", "swift":
/// "AppMigrator"}`) and the tests give its code to ``MigrationRunner``
/// (``MigrationRunner/runMatrix(config:options:swiftStages:)``). The closure is
/// given the temporary copy's path, which it opens itself (fixturekit's own
/// connection is closed meanwhile), and the settings the stage declares: the
/// app's code opens the store as the app does, and may set them. It runs on the
/// path's thread; it cannot be interrupted, so its `timeout` does not apply.
/// A stage that throws fails with the error's description. The `fixturekit`
/// tool cannot run it, and says so.
public struct SwiftStage: Sendable {
    /// What a Swift stage is given.
    public struct Context: Sendable {
        /// The temporary copy's store: its main file.
        public var storePath: String
        /// The versions the stage goes from and to.
        public var from: String
        public var to: String
        /// The settings the stage declares, corpus-wide ones and defaults filled in:
        /// ``ConnectionSettings/apply(to:)`` sets them on a connection of the library's.
        public var connection: ConnectionSettings
    }

    /// The stage's code.
    public let body: @Sendable (Context) throws -> Void

    public init(_ body: @escaping @Sendable (Context) throws -> Void) {
        self.body = body
    }
}
