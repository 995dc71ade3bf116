import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport

/// The rule a short replaced value is judged by: where it stands whole, and
/// where it is only part of a longer number, word or encoded run.
struct WholeValueTests {
    /// Whether the first occurrence of `value` in `text` stands whole, in UTF-8 and in both UTF-16 orders.
    func stands(_ value: String, in text: String, cell: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        var answers: [Bool] = []
        for form in [WholeValue.Form.utf8, .utf16LE, .utf16BE] {
            let encode = { (string: String) -> [UInt8] in
                form == .utf8 ? Array(string.utf8) : LeakSpool.utf16(Array(string.utf16), bigEndian: form == .utf16BE)
            }
            let bytes = encode(text), pattern = encode(value)
            let start = (0...(bytes.count - pattern.count)).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern && $0 % form.unit == 0 }
            guard let start else {
                Issue.record("\(value) is not in \(text)", sourceLocation: sourceLocation)
                return false
            }
            answers.append(bytes.withUnsafeBytes { WholeValue.isWhole($0, start..<(start + pattern.count), form: form, value: cell ? 0..<bytes.count : nil) })
        }
        #expect(Set(answers).count == 1, "the forms disagree on \(value) in \(text)", sourceLocation: sourceLocation)
        return answers[0]
    }

    @Test func aValueStandsWholeAsACellOrAWord() {
        for (value, text) in [
            ("831440", "831440"), ("Home", "Home"),
            ("831440", "Your code is 831440."), ("831440", "code: 831440, expires"), ("831440", "#831440"), ("831440", "(831440)"),
            ("831440", "+831440"), ("Home", "Welcome Home!"), ("Home", "Home, sweet home"), ("Home", "{\"name\":\"Home\"}"),
            ("Home", "name=Home&x=1"), ("Home", "Home's"), ("Anna", "Hi Anna,\nyour order"), ("Anna", "“Anna”"), ("Anna", "«Anna»"),
            ("Anna", "Anna-"), ("Anna", "-Anna"), ("Anna", "Anna."), ("Anna", "Anna.\tNext"), ("Anna", "Anna/ "), ("Anna", "@Anna"),
            ("Anna", "Anna\u{00A0}Smith"), ("Zoë", "Zoë"), ("Zoë", "dear Zoë!"), ("東京", "住所 東京 です"), ("Anna", "Anna\u{1F642}"),
            ("2019", "2019 was a year"), ("42.5", "x = 42.5;"), ("+33612345678", "call +33612345678 now"),
            ("Anna", "Hi -- Anna"), ("Anna", "Anna... yes"), ("Home", "ab/+ Home"), ("Home", "++++Home"),
        ] {
            #expect(stands(value, in: text), "\(value) in \(text)")
        }
    }

    @Test func aValueInsideALongerNumberWordOrEncodedRunDoesNotStandWhole() {
        for (value, text) in [
            // Timestamps: the microseconds, the year, the time.
            ("831440", "2019-08-25 06:59:42.831440"), ("831440", "2019-08-25T06:59:42.831440Z"), ("2019", "2019-08-25 06:59:42"),
            ("831440", "06:59:831440"), ("831440", "1566716382.831440"), ("831440", "42,831440"), ("831440", "12831440"), ("831440", "8314401"),
            // Base64 and hex runs, UUIDs.
            ("Home", "q2x+Home/Zk9=="), ("Home", "abcHomeXYZ"), ("Home", "HomeABC+de/f=="), ("Home", "x9+Home"),
            ("831440", "9f3a831440bc7d"), ("831440", "550e8400-e29b-41d4-a716-4466831440aa"), ("4155", "550e8400-e29b-41d4-4155-446655440000"),
            // Words joined to others.
            ("Marie", "Marie-Claire"), ("Anna", "anna@example.org".replacingOccurrences(of: "anna", with: "Anna")), ("Anna", "Anna_smith"),
            ("Anna", "Annabelle"), ("anna", "Joanna"), ("Anna", "users/Anna/avatar"), ("Zoë", "Zoëlle"), ("Anna", "Anna\u{0301}"),
            // Base64 may put several of its joiners in a row.
            ("Home", "ab/+Home/+cd"), ("Home", "ab+++Home"), ("Home", "ab-_Home"),
        ] {
            #expect(!stands(value, in: text), "\(value) in \(text)")
        }
    }

    /// A value whose own first or last character is no letter or digit is open on that side.
    @Test func aValueThatStartsOrEndsWithPunctuationIsOpenThere() {
        #expect(stands("-831440", in: "x-831440 y"))
        #expect(stands("Home ", in: "aHome zz") == false)
        #expect(stands(" Home", in: "a Homez") == false)
        #expect(stands(" Home ", in: "a Home z"))
    }

    /// In raw bytes, the edges of the buffer are boundaries; in a blob, only the whole value stands.
    @Test func rawBytesAndBlobs() {
        let bytes: [UInt8] = [0x00, 0x19] + Array("831440".utf8) + [0x09, 0x00]
        bytes.withUnsafeBytes { raw in
            #expect(WholeValue.isWhole(raw, 2..<8, form: .utf8))
            #expect(WholeValue.isWhole(raw, 2..<8, form: .blob))
            #expect(!WholeValue.isWhole(raw, 2..<8, form: .blob, value: 0..<10))
            #expect(WholeValue.isWhole(raw, 2..<8, form: .blob, value: 2..<8))
            // A value cut over an overflow page: its end is no boundary, and not its continuation either.
            #expect(WholeValue.isWhole(raw, 2..<8, form: .utf8, value: 2..<8, truncated: true))
        }
        let joined = Array("X831440".utf8)
        joined.withUnsafeBytes { raw in #expect(!WholeValue.isWhole(raw, 1..<7, form: .utf8)) }
    }

    /// The length from which a value is searched as a fragment grows with the store and the values searched.
    @Test(arguments: [
        (UInt64(32 << 10), 10, 9), (UInt64(1 << 20), 1000, 13), (UInt64(100 << 20), 100_000, 17), (UInt64(1 << 30), 1_000_000, 19),
        (UInt64(1 << 40), 10_000_000, 23), (UInt64(1) << 62, Int.max / 2, 32), (UInt64(512), 0, 6), (UInt64(0), 0, 4),
    ])
    func theWholeValueLengthFollowsTheStoreSize(bytes: UInt64, values: Int, expected: Int) {
        #expect(LeakScan.wholeValueBytes(storeBytes: bytes, values: values) == expected)
    }
}
