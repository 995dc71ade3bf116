import FixtureKitSystem

extension Manifest {
    /// What anonymizing kept of the data, in counts (never a value): what a
    /// migration's success may depend on (duplicates under a collation, NULL
    /// versus `''`, lengths, each value's storage class). Recorded after the
    /// rules ran, with the counts before them where the rules changed any.
    public struct DataProfile: Codable, Equatable, Sendable {
        /// Per column a rule rewrites, and per column of their tables that a
        /// UNIQUE constraint or an index covers: `users.email`.
        public package(set) var columns: [String: ColumnProfile]
        /// Per index of those tables on several columns or on expressions, by name.
        public package(set) var indexes: [String: IndexProfile]

        public init(columns: [String: ColumnProfile] = [:], indexes: [String: IndexProfile] = [:]) {
            self.columns = columns
            self.indexes = indexes
        }
    }

    /// A column's values, counted.
    public struct ProfileCounts: Codable, Equatable, Sendable {
        public package(set) var nulls = 0
        /// `''` and zero-length blobs.
        public package(set) var empty = 0
        /// Values of each storage class.
        public package(set) var integer = 0
        public package(set) var real = 0
        public package(set) var text = 0
        public package(set) var blob = 0
        /// The shortest and longest text (in characters, as `length()` counts)
        /// or blob (in bytes); absent without one.
        public package(set) var minLength: Int?
        public package(set) var maxLength: Int?
        /// Distinct values under each comparison that applies to the column:
        /// `BINARY`, and `NOCASE` or `RTRIM` when its declaration or an index on it uses them.
        public package(set) var distinct: [String: Int] = [:]
        /// Values held by two rows or more, under each of those comparisons.
        public package(set) var duplicateGroups: [String: Int] = [:]

        public init() {}
    }

    /// A column's counts after anonymizing, and before it when they differ.
    public struct ColumnProfile: Codable, Equatable, Sendable {
        public package(set) var counts: ProfileCounts
        /// The counts before the rules ran, when the rules changed any (a
        /// `mask`, `null` or `value` does so by design); absent when equal.
        public package(set) var before: ProfileCounts?

        public init(counts: ProfileCounts, before: ProfileCounts? = nil) {
            self.counts = counts
            self.before = before
        }

        enum CodingKeys: String, CodingKey { case before }

        public init(from decoder: any Decoder) throws {
            counts = try ProfileCounts(from: decoder)
            before = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(ProfileCounts.self, forKey: .before)
        }

        public func encode(to encoder: any Encoder) throws {
            try counts.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(before, forKey: .before)
        }
    }

    /// An index's keys, counted, under the index's own collations and expressions.
    public struct IndexCounts: Codable, Equatable, Sendable {
        /// Rows the index holds (a partial index: those its condition selects).
        public package(set) var rows = 0
        /// Distinct keys.
        public package(set) var distinct = 0
        /// Keys held by two rows or more (NULLs equal to each other, as `ORDER BY` groups them).
        public package(set) var duplicateGroups = 0

        public init(rows: Int = 0, distinct: Int = 0, duplicateGroups: Int = 0) {
            self.rows = rows
            self.distinct = distinct
            self.duplicateGroups = duplicateGroups
        }
    }

    /// An index's counts after anonymizing, and before it when they differ.
    public struct IndexProfile: Codable, Equatable, Sendable {
        public package(set) var table: String
        public package(set) var counts: IndexCounts
        public package(set) var before: IndexCounts?

        public init(table: String, counts: IndexCounts, before: IndexCounts? = nil) {
            self.table = table
            self.counts = counts
            self.before = before
        }

        enum CodingKeys: String, CodingKey { case table, before }

        public init(from decoder: any Decoder) throws {
            counts = try IndexCounts(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            table = try container.decode(String.self, forKey: .table)
            before = try container.decodeIfPresent(IndexCounts.self, forKey: .before)
        }

        public func encode(to encoder: any Encoder) throws {
            try counts.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encodeIfPresent(before, forKey: .before)
        }
    }
}
