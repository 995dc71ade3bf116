import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// When a value that changed its storage class is still the same value.
///
/// A value is preserved when it reads back as the same value. Comparing with
/// `IS` alone is not enough: SQLite applies the migrated column's affinity
/// first, so `'01234'` in a TEXT column "equals" 1234 after a change to
/// INTEGER, and `' 77 '`, `'1e3'` and `'5.0'` equal 77, 1000 and 5. The rule,
/// in SQL over a source value `s` and its migrated value `m`:
/// - of one storage class: equal as `IS` compares (the source column's collation);
/// - two numbers (INTEGER and REAL): equal in value (3 and 3.0);
/// - text and a number: the number, written back as text (`CAST(m AS TEXT)`),
///   is the text byte for byte: `'42'` and 42, `'3.5'` and 3.5 pass;
///   `'01234'`, `' 77 '`, `'1e3'`, `'0x10'`, `'5.0'` (in an INTEGER column) do
///   not; a whole REAL reads back as its integer too (`'100'` and 100.0);
/// - date text and INTEGER seconds: the same instant (`strftime('%s', s)`);
/// - anything else (text and a blob, a number and a blob): a change, unless
///   the column is declared `derived`.
enum LossyConversion {
    /// 1 when `s` and `m` (two SQL expressions) hold the same value by the rule above, else 0.
    static func sameValue(_ s: String, _ m: String) -> String {
        let numbers = "('integer', 'real')"
        return """
            (CASE WHEN typeof(\(s)) = typeof(\(m)) THEN \(s) IS \(m) \
            WHEN typeof(\(s)) IN \(numbers) AND typeof(\(m)) IN \(numbers) THEN \(s) = \(m) \
            WHEN typeof(\(s)) = 'text' AND typeof(\(m)) IN \(numbers) THEN \
            coalesce(CAST(\(m) AS TEXT) = \(s) COLLATE BINARY, 0) OR \(wholeReal(m, as: s)) OR (typeof(\(m)) = 'integer' AND coalesce(strftime('%s', \(s)) = CAST(\(m) AS TEXT), 0)) \
            WHEN typeof(\(m)) = 'text' AND typeof(\(s)) IN \(numbers) THEN \
            coalesce(CAST(\(s) AS TEXT) = \(m) COLLATE BINARY, 0) OR \(wholeReal(s, as: m)) OR (typeof(\(s)) = 'integer' AND coalesce(strftime('%s', \(m)) = CAST(\(s) AS TEXT), 0)) \
            ELSE 0 END)
            """
    }

    /// `number` is a whole REAL whose integer, written as text, is `text`.
    private static func wholeReal(_ number: String, as text: String) -> String {
        "(typeof(\(number)) = 'real' AND \(number) = CAST(\(number) AS INTEGER) AND coalesce(CAST(CAST(\(number) AS INTEGER) AS TEXT) = \(text) COLLATE BINARY, 0))"
    }
}
