import FixtureKitSystem

/// Moving ISO-8601 dates by whole days, in their own text: only the date part
/// changes, the time of day, fraction and zone are kept byte for byte.
///
/// Accepted: `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM`,
/// `:SS`, a fraction `.SSS…`, and a zone `Z`, `±HH:MM` or `±HHMM`, as SQLite's
/// own date functions write and read them.
enum DateShift {
    /// `YYYY-MM-DD` is ten bytes.
    static let dateByteCount = 10

    /// Writes `text` moved by `days` to `output`.
    /// - Returns: `false` when `text` is not such a date, or would leave years 0–9999.
    static func shift(_ text: UnsafeBufferPointer<UInt8>, days: Int, into output: inout [UInt8]) -> Bool {
        guard text.count >= dateByteCount, isValidTail(text[dateByteCount...]),
              let year = number(text, 0, 4), text[4] == UInt8(ascii: "-"),
              let month = number(text, 5, 2), text[7] == UInt8(ascii: "-"),
              let day = number(text, 8, 2),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return false }
        let (newYear, newMonth, newDay) = civil(fromDays: daysFromCivil(year: year, month: month, day: day) + days)
        guard (0...9999).contains(newYear) else { return false }
        output.removeAll(keepingCapacity: true)
        append(newYear, digits: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        append(newMonth, digits: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        append(newDay, digits: 2, to: &output)
        output.append(contentsOf: text[dateByteCount...])
        return true
    }

    /// What may follow the date: nothing, or a time of day and a zone.
    static func isValidTail(_ tail: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        var bytes = tail[...]
        if bytes.isEmpty { return true }
        guard bytes.first == UInt8(ascii: "T") || bytes.first == UInt8(ascii: " ") else { return false }
        bytes = bytes.dropFirst()
        func twoDigits() -> Int? {
            guard bytes.count >= 2, let first = digit(bytes[bytes.startIndex]), let second = digit(bytes[bytes.startIndex + 1]) else { return nil }
            bytes = bytes.dropFirst(2)
            return first * 10 + second
        }
        func skip(_ character: Character) -> Bool {
            guard bytes.first == character.asciiValue else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let hour = twoDigits(), hour < 24, skip(":"), let minute = twoDigits(), minute < 60 else { return false }
        if skip(":") {
            guard let second = twoDigits(), second < 61 else { return false }
            if skip(".") {
                let fraction = bytes.prefix(while: { digit($0) != nil })
                guard !fraction.isEmpty else { return false }
                bytes = bytes.dropFirst(fraction.count)
            }
        }
        if bytes.isEmpty || (skip("Z") && bytes.isEmpty) { return true }
        guard skip("+") || skip("-"), let zoneHour = twoDigits(), zoneHour < 24 else { return false }
        _ = skip(":")
        guard let zoneMinute = twoDigits(), zoneMinute < 60 else { return false }
        return bytes.isEmpty
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ offset: Int, _ count: Int) -> Int? {
        var value = 0
        for index in offset..<(offset + count) {
            guard let digit = digit(text[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    private static func append(_ value: Int, digits: Int, to output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<digits { divisor *= 10 }
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date of a count of days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
