import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension MigrationRunner {
    /// Checks, before the matrix runs, that what `changes` moves and `renames`
    /// renames exists: the old table or column in a supported version's
    /// fixture, the new one (and a move's key) in the current version's. A
    /// misspelt name would otherwise make a check that follows nothing.
    /// Fixtures that cannot be read are left to the paths, which report them.
    /// - Parameter path: the configuration file, for the message.
    /// - Throws: ``FixtureKitError`` (exit status 2), as for a malformed configuration.
    func checkDeclarations(configurationPath path: String) throws(FixtureKitError) {
        let moves = (configuration.changes ?? [:]).compactMap { name, change in change.move.map { (name, $0) } }.sorted { $0.0 < $1.0 }
        let renames = (configuration.renames ?? [:]).sorted { $0.key < $1.key }
        guard !moves.isEmpty || !renames.isEmpty else { return }
        func fail(_ why: String) -> FixtureKitError { FixtureKitError(what: "read configuration", path: path, why: why) }
        let current = configuration.current
        let target = fixture(current).contents?.schema
        let sources = configuration.supportedVersions.compactMap { fixture($0).contents?.schema }

        func has(_ schema: SchemaSnapshot, _ name: String) -> Bool {
            guard let column = CorpusConfiguration.columnName(name) else {
                return schema.tables.contains { $0.kind == "table" && $0.name.identifierKey == name.identifierKey }
            }
            guard let table = schema.tables.first(where: { $0.kind == "table" && $0.name.identifierKey == column.table.identifierKey }) else { return false }
            return table.columns.contains { $0.name.identifierKey == column.column.identifierKey }
        }
        func what(_ name: String) -> String { name.contains(".") ? "a column" : "a table" }
        let supported = configuration.supportedVersions.joined(separator: ", ")
        for (name, move) in moves {
            if !sources.isEmpty, !sources.contains(where: { has($0, name) }) {
                throw fail("changes[\"\(name)\"] moves \(name), which is not a column of any supported version (\(supported))")
            }
            if let target {
                for (key, value) in [("movedTo", move.movedTo), ("key", move.key)] where !has(target, value) {
                    throw fail("changes[\"\(name)\"].\(key): \(value) is not a column of \(current)")
                }
            }
        }
        for (old, new) in renames {
            if !sources.isEmpty, !sources.contains(where: { has($0, old) }) {
                throw fail("renames[\"\(old)\"]: \(old) is not \(what(old)) of any supported version (\(supported))")
            }
            if let target {
                if !has(target, new) {
                    throw fail("renames[\"\(old)\"]: \(new) is not \(what(old)) of \(current)")
                }
            }
        }
    }
}
