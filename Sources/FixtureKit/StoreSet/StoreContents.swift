/// What is inside a store, read through SQLite from a copy: schema, row counts,
/// model identity.
public struct StoreContents: Codable, Equatable, Sendable {
    public var schemaHash: String
    public var objectCount: Int
    /// Row count of every table (internal `sqlite_` tables and virtual tables aside).
    public var tables: [String: Int]
    public var model: CoreDataModel?
    public var userVersion: Int
    /// Rows that violate a foreign key (`PRAGMA foreign_key_check`): stores from
    /// the field often have some, and a fixture keeps them as they were.
    public var foreignKeyViolations: Int
    /// The full structure, for comparisons; not part of the JSON reports.
    public var schema: SchemaSnapshot

    enum CodingKeys: String, CodingKey { case schemaHash, objectCount, tables, model, userVersion, foreignKeyViolations }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schemaHash = try container.decode(String.self, forKey: .schemaHash)
        objectCount = try container.decode(Int.self, forKey: .objectCount)
        tables = try container.decode([String: Int].self, forKey: .tables)
        model = try container.decodeIfPresent(CoreDataModel.self, forKey: .model)
        userVersion = try container.decode(Int.self, forKey: .userVersion)
        foreignKeyViolations = try container.decodeIfPresent(Int.self, forKey: .foreignKeyViolations) ?? 0
        schema = SchemaSnapshot(tables: [], indexes: [], views: [], triggers: [])
    }

    /// Reads everything from an open connection.
    /// - Throws: ``FixtureKitError``.
    public init(database: Database) throws(FixtureKitError) {
        do {
            schema = try SchemaSnapshot(database: database)
            var counts: [String: Int] = [:]
            for table in schema.tables where table.kind == "table" {
                counts[table.name] = Int(try database.scalar("SELECT count(*) FROM \(quotedIdentifier(table.name))")?.integer ?? 0)
            }
            tables = counts
            userVersion = Int(try database.scalar("PRAGMA user_version")?.integer ?? 0)
            foreignKeyViolations = Int(try database.scalar("SELECT count(*) FROM pragma_foreign_key_check")?.integer ?? 0)
        } catch {
            throw FixtureKitError(what: "read store", path: database.path, why: error.description)
        }
        schemaHash = schema.structuralHash
        objectCount = schema.objectCount
        model = try CoreDataModel.read(from: database)
    }
}
