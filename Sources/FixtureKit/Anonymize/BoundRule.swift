import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// A rule bound to a column of the store being anonymized. A class: the SQL
/// functions read it once per value, and a reference costs one retain.
final class BoundRule {
    /// Its position in the session: the first argument of the SQL functions.
    let index: Int
    let table: String
    let column: String
    let rule: ColumnRule
    /// The rule's strategy, as the rules file gave it: what the session executes.
    let strategy: Strategy
    /// What the keyed hash is taken over before the attempt and the value: the
    /// strategy's tag, then the length and bytes of its domain (the pseudonym's
    /// domain, the fake's kind, the shift-date's domain, the noisy column).
    let derivationPrefix: [UInt8]
    /// Where the cache keeps the outputs of keyed text (pseudonym, fake) and
    /// the day offsets of shift-date: shared by the rules whose outputs are
    /// equal for equal inputs.
    let outputs: OutputCache.Owner
    /// The temporary table mapping originals to unique pseudonyms, when the
    /// rule's domain holds a UNIQUE column.
    var mapTable: String?
    let columnUnique: Bool
    /// Its outputs are claimed, so that no two values get one (a narrow format
    /// that is not mapped; see AnonymizationSession+Claims.swift).
    var claimsOutputs = false
    /// The profile's tallies its calls feed (a streamed rule without `where`).
    var profileSlots: (before: Int, after: Int)?
    /// The mask character's UTF-8 bytes.
    let maskBytes: [UInt8]

    init(index: Int, table: String, column: String, rule: ColumnRule, derivationPrefix: [UInt8], outputs: OutputCache.Owner, mapTable: String?, columnUnique: Bool) {
        self.index = index
        self.table = table
        self.column = column
        self.rule = rule
        self.strategy = rule.strategy
        self.derivationPrefix = derivationPrefix
        self.outputs = outputs
        self.mapTable = mapTable
        self.columnUnique = columnUnique
        if case .mask(_, _, let character) = rule.strategy { maskBytes = Array(character.utf8) } else { maskBytes = [] }
    }

    var name: String { "\(table).\(column)" }

    /// Whether the strategy gives the same output for the same text under the
    /// same key (pseudonym, fake): worth a cache, and worth computing ahead.
    var isKeyedText: Bool {
        switch strategy {
        case .pseudonym, .fake: true
        default: false
        }
    }
}
