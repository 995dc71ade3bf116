import FixtureKitSystem
import FixtureKitSQLite

extension CorpusConfiguration {
    /// The names in `counts`, `keys`, `changes` and `renames` that name a table no fixture
    /// has: a misspelt name would silently check nothing.
    ///
    /// - Parameter tables: the tables of each fixture, by `identifierKey`.
    /// - Returns: one message per unknown name, in the order of the keys.
    package func unknownTableNames(among tables: Set<String>) -> [String] {
        var messages: [String] = []
        func check(_ section: String, _ names: [String], table: (String) -> String) {
            for name in names.sorted() where !tables.contains(table(name).identifierKey) {
                messages.append("\(section): \"\(name)\" names a table no fixture has")
            }
        }
        check("counts", Array((counts ?? [:]).keys)) { $0 }
        check("keys", Array((keys ?? [:]).keys)) { $0 }
        check("changes", Array((changes ?? [:]).keys)) { name in
            String(name.split(separator: ".", maxSplits: 1).first ?? Substring(name))
        }
        check("renames", Array((renames ?? [:]).keys)) { name in
            String(name.split(separator: ".", maxSplits: 1).first ?? Substring(name))
        }
        return messages
    }

    /// The tables every fixture folder of the corpus holds, from their manifests;
    /// `nil` when a version the configuration names has no folder with a
    /// manifest to tell (an archive alone, a missing fixture).
    package func fixtureTables() -> Set<String>? {
        let versions = Set([current] + supported + stages.flatMap { [$0.from, $0.to] })
        var tables: Set<String> = []
        for version in versions {
            let manifestPath = resolve(version).appendingPath(Manifest.fileName)
            guard let bytes = try? POSIX.readFile(manifestPath), let manifest = try? Manifest.decode(bytes) else { return nil }
            tables.formUnion(manifest.tables.keys.map { $0.identifierKey })
        }
        return tables
    }

    /// Refuses names in `counts`, `keys` and `changes` that no fixture has.
    /// - Throws: ``FormatError`` (exit 2), the first unknown name and how many
    ///   more, with the fixtures' tables as its hint.
    package func checkTableNames(path: String) throws(FormatError) {
        guard let tables = fixtureTables() else { return }
        let unknown = unknownTableNames(among: tables)
        guard let first = unknown.first else { return }
        let more = unknown.count > 1 ? " (and \(unknown.count - 1) more)" : ""
        throw FormatError(
            .configuration, file: path, expected: first + more,
            hint: "the fixtures' tables are \(tables.sorted().joined(separator: ", "))")
    }
}
