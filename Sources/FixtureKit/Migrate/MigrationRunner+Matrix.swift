import FixtureKitSystem
import FixtureKitModels

extension MigrationRunner {
    /// Reads the configuration at `config` and runs its matrix (or the part `options` selects).
    ///
    /// - Throws: ``FixtureKitError``: the configuration cannot be read or is
    ///   wrong (exit 2: a name in `counts`, `keys` or `changes` that no fixture
    ///   has included, and a move or rename whose column no fixture has), or
    ///   `options.from` starts no path (a usage error).
    /// - Parameter swiftStages: the code of the configuration's Swift stages by
    ///   name (``SwiftStage``): an app's tests run its own migration code.
    public static func runMatrix(config: String, options: Options = Options(), swiftStages: [String: SwiftStage] = [:]) throws(FixtureKitError) -> MigrationReport {
        try prepareMatrix(config: config, options: options, swiftStages: swiftStages).run(options)
    }

    /// Reads and checks the configuration at `config` for a run with `options`,
    /// and the runner that runs its matrix (``run(_:)``): what
    /// ``runMatrix(config:options:swiftStages:)`` does before the matrix runs, so
    /// that a caller can check more before it starts (``checkTemporaryFolder()``,
    /// ``checkReportFile(_:format:)``), as the tool does.
    /// - Throws: ``FixtureKitError``, as ``runMatrix(config:options:swiftStages:)``.
    public static func prepareMatrix(config: String, options: Options = Options(), swiftStages: [String: SwiftStage] = [:]) throws(FixtureKitError) -> MigrationRunner {
        let configuration = try CorpusConfiguration.load(config)
        try configuration.checkNames(path: config)
        if let from = options.from, !configuration.supported.contains(from), !configuration.stages.contains(where: { $0.from == from }) {
            throw FixtureKitError(what: "migrate", path: config, why: "no path starts at \(from)", category: .usage)
        }
        let runner = MigrationRunner(configuration: configuration, swiftStages: swiftStages)
        try runner.checkDeclarations(configurationPath: config)
        return runner
    }
}
