import FixtureKitSQLite

/// What the configuration declares about a column or a table.
package enum DeclaredChange: String, CaseIterable {
    /// The stage computes the column: only check that it is not NULL where the source was not.
    case derived
    /// The column (or table) goes away on purpose.
    case dropped
    /// A JSON array whose order carries no meaning: compared after sorting.
    case unordered
    /// A table whose rows were split or merged: not compared.
    case excluded
}
