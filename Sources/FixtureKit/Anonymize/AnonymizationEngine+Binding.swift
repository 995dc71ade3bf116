import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

extension AnonymizationEngine {
    // MARK: - Binding

    /// Checks the rules against the schema and binds each to its column.
    /// - Returns: the rules that rewrite something, and the columns the store lacks.
    static func bind(_ rules: AnonymizationRules, to schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> ([BoundRule], [String]) {
        func fail(_ why: String, hint: String? = nil) -> FixtureKitError {
            FixtureKitError(what: "anonymize", path: display, why: why, hint: hint)
        }
        var bound: [BoundRule] = []
        var absent: [String] = []
        var owners = OutputCache.Owners()
        for (ruleTable, ruleColumn, rule) in rules.orderedRules {
            if schema.isInternal(ruleTable) {
                throw fail("\(ruleTable).\(ruleColumn): \(ruleTable) is SQLite's or an FTS index's own table, which fixturekit rebuilds", hint: "name the table the index is built from")
            }
            // Names resolve as SQLite resolves them: `users.email` is `Users.Email`.
            guard let table = schema.table(ruleTable), let column = table.column(ruleColumn) else {
                absent.append("\(ruleTable).\(ruleColumn)")
                continue
            }
            let tableName = table.name, columnName = column.name
            let name = "\(tableName).\(columnName)"
            guard rule.strategy != .keep else { continue }
            if column.generated { throw fail("\(name): a generated column: rewrite the columns it is computed from") }
            if table.kind == .fullText(ownContent: false) {
                throw fail("\(name): \(tableName) is an FTS index without content of its own", hint: "anonymize the table it indexes; the index is rebuilt from it")
            }
            if let whereClause = rule.whereClause, let problem = checkExpression(database, table: tableName, whereClause) {
                throw fail("\(name): \"where\" is not an expression on \(tableName): \(problem)")
            }
            try checkStructure(rule.strategy, column: column, of: table, name: name, fail: fail)
            let tag: DerivationTag?
            let domain: String
            var parameters = ""
            switch rule.strategy {
            case .pseudonym(let format, let domainName, let length):
                tag = .pseudonym
                domain = domainName ?? "\(tableName).\(columnName)"
                parameters = "\(format.rawValue)/\(length)"
            case .fake(let kind):
                tag = .fake
                domain = kind.rawValue
            case .shiftDate(let group, let maxDays, let unit, let domainName):
                if let group, table.column(group) == nil {
                    throw fail("\(name): \"group\" names \(group), which \(tableName) does not have")
                }
                tag = .shiftDate
                domain = domainName ?? ""
                parameters = "\(maxDays)/\(unit.rawValue)"
            case .noise:
                tag = .noise
                domain = name
            default:
                tag = nil
                domain = name
            }
            let prefix = tag.map { AnonymizationSession.derivationPrefix($0, domain: domain) } ?? []
            bound.append(BoundRule(
                index: bound.count, table: tableName, column: columnName, rule: rule, derivationPrefix: prefix,
                outputs: owners.owner(OutputCache.Identity(derivationPrefix: prefix, parameters: parameters)),
                mapTable: nil, columnUnique: column.unique))
        }
        if rules.strict {
            let uncovered = try uncoveredColumns(rules, schema: schema, database: database, display: display)
            if !uncovered.isEmpty {
                let undecided = uncovered.count { $0.hasSuffix(" (TODO)") }
                throw FixtureKitError(
                    what: "anonymize", path: display,
                    why: "strict: no rule for \(uncovered.count == 1 ? "1 column" : "\(uncovered.count) columns"): \(uncovered.joined(separator: ", "))",
                    hint: undecided > 0
                        ? "decide each TODO in \(rules.path): a strategy, or \"keep\" for a column that holds nothing personal"
                        : "give each a rule in \(rules.path), or \"keep\"")
            }
        }
        // A pseudonym or fake domain that holds a UNIQUE column is mapped as a whole,
        // so that every column of the domain gets the same unique pseudonyms.
        var domains: [[UInt8]: [Int]] = [:]
        for rule in bound {
            if rule.isKeyedText { domains[rule.derivationPrefix, default: []].append(rule.index) }
        }
        var mapNumber = 0
        for members in domains.values.sorted(by: { $0[0] < $1[0] }) where members.contains(where: { bound[$0].columnUnique }) {
            mapNumber += 1
            for member in members { bound[member].mapTable = "fixturekit_map_\(mapNumber)" }
        }
        for rule in bound where rule.mapTable == nil && rule.isNarrow { rule.claimsOutputs = true }
        return (bound, absent)
    }

    /// The TEXT and BLOB columns without a rule (and those of other types that
    /// hold text or blobs all the same), as `table.column`, sorted.
    static func uncoveredColumns(_ rules: AnonymizationRules, schema: AnonymizationSchema, database: Database, display: String) throws(FixtureKitError) -> [String] {
        try textColumns(schema: schema, database: database, display: display) { table, column in rules.rule(table: table, column: column) == nil }
            .map { column in
                let name = "\(column.table).\(column.column)"
                if rules.isUndecided(table: column.table, column: column.column) { return name + " (TODO)" }
                return column.holds.map { "\(name) (\(column.affinity) column holding \($0))" } ?? name
            }
            .sorted(by: AnonymizationRules.bytewise)
    }

    /// A column that strict mode wants a rule for.
    struct TextColumn {
        var table: String
        var column: String
        var affinity: AnonymizationSchema.Affinity
        /// Not declared TEXT or BLOB, but holding text or blobs all the same:
        /// `text`, `blobs` or `text and blobs`, what its rows hold.
        var holds: String?
    }

    /// The TEXT and BLOB columns a user can write (those of ordinary and
    /// `WITHOUT ROWID` tables, of FTS tables that keep their own text, an R*Tree's
    /// auxiliary columns), and the columns of other types that hold text or
    /// blobs, among those `include` accepts; tables bytewise, columns in their order.
    static func textColumns(schema: AnonymizationSchema, database: Database, display: String, include: (String, String) -> Bool = { _, _ in true }) throws(FixtureKitError) -> [TextColumn] {
        var found: [TextColumn] = []
        for table in schema.tables.values.sorted(by: { AnonymizationRules.bytewise($0.name, $1.name) }) {
            let candidates = table.writableColumns.filter { include(table.name, $0.name) }
            for column in candidates where column.affinity == .text || column.affinity == .blob {
                found.append(TextColumn(table: table.name, column: column.name, affinity: column.affinity, holds: nil))
            }
            // SQLite stores text in an INTEGER column when it does not look like a number.
            let others = candidates.filter { $0.affinity != .text && $0.affinity != .blob }
            guard !others.isEmpty, table.kind == .ordinary else { continue }
            let probes = others.flatMap { column in
                ["text", "blob"].map { "max(typeof(\(quotedIdentifier(column.name))) = '\($0)')" }
            }.joined(separator: ", ")
            let row: [SQLiteValue]
            do { row = try database.rows("SELECT \(probes) FROM \(quotedIdentifier(table.name))").first ?? [] } catch {
                throw FixtureKitError(what: "anonymize", path: display, why: error.description, cause: error)
            }
            for (index, column) in others.enumerated() {
                guard row.count == 2 * others.count else { break }
                let (text, blobs) = (row[2 * index].integer == 1, row[2 * index + 1].integer == 1)
                guard text || blobs else { continue }
                let holds = text && blobs ? "text and blobs" : text ? "text" : "blobs"
                found.append(TextColumn(table: table.name, column: column.name, affinity: column.affinity, holds: holds))
            }
        }
        return found
    }

    /// Why `expression` is not one SQL expression on `table`, or `nil` when it is:
    /// SQLite compiles it; anything after it (a second statement) is refused.
    static func checkExpression(_ database: Database, table: String, _ expression: String) -> String? {
        switch database.compileCheck("SELECT 1 FROM \(quotedIdentifier(table)) WHERE (\(expression))") {
        case .oneStatement: nil
        case .error(let message): message
        case .followedByMore: "it is followed by more SQL"
        }
    }
}
