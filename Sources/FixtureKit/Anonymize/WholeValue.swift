/// The leak scan's rule for a short replaced value: where it stands whole.
///
/// A value shorter than ``LeakScan/wholeValueBytes(storeBytes:values:)`` is a
/// leak only where it stands whole: a cell (or a file, or an index key) that is
/// exactly its bytes, or a word of a text, that is, an occurrence that neither
/// side continues:
/// - a side is open at the edge of the cell, or where the value's own first
///   (last) character is neither a letter nor a digit;
/// - a letter or a digit (any script) next to it continues it (`Home` in
///   `HomePage`, `831440` in `4831440`);
/// - so does a joiner followed by a letter or a digit: `-`, `_`, `+`, `/`, `.`
///   or `@` (`Marie` in `Marie-Claire`, `Home` in base64's `…x+Home/y…`, a UUID's
///   group, `anna` in `anna@example.org`), or up to three of base64's `+/-_`
///   in a row (`…x/+Home…`), and between two digits `,` or `:` (`831440` in
///   `06:59:42.831440`, in `12,831440`, in `2019-08-25`);
/// - anything else is a boundary: a space, a quote, a bracket, `=`, `&`, `;`,
///   `#`, a control character, a byte that is no character.
///
/// Text is read in the form the pattern was searched in (UTF-8, UTF-16LE or
/// UTF-16BE); a blob's bytes stand whole only as the whole cell.
enum WholeValue {
    /// How a pattern's bytes encode it, kept in the top bits of its column in the spool.
    enum Form: UInt32, Sendable {
        case utf8 = 0, utf16LE = 1, utf16BE = 2, blob = 3

        /// Bytes per code unit.
        var unit: Int { self == .utf16LE || self == .utf16BE ? 2 : 1 }
    }

    /// The bits of a spooled column that hold its ``Form``.
    static let formShift: UInt32 = 28
    static let columnMask: UInt32 = (1 << formShift) - 1

    /// A spooled column with the form of its value.
    static func tagged(_ column: Int, _ form: Form) -> UInt32 { UInt32(column) & columnMask | form.rawValue << formShift }

    static func form(ofTagged column: UInt32) -> Form { Form(rawValue: column >> formShift) ?? .utf8 }

    /// Whether the occurrence at `range` of `buffer` stands whole.
    /// - Parameters:
    ///   - form: how the pattern is encoded; ``Form/blob`` stands whole only as
    ///     the whole value (in raw bytes, it is judged as text).
    ///   - value: the bounds of the value the occurrence is in (its edges are
    ///     boundaries); `nil` when `buffer` is raw bytes whose every byte is
    ///     known (its own edges are then boundaries too).
    ///   - truncated: the value goes on past `value`'s end (an index key cut
    ///     over an overflow page): its end is no boundary, but what follows is unknown.
    static func isWhole(_ buffer: UnsafeRawBufferPointer, _ range: Range<Int>, form: Form, value: Range<Int>? = nil, truncated: Bool = false) -> Bool {
        let bounds = value ?? 0..<buffer.count
        guard range.lowerBound >= bounds.lowerBound, range.upperBound <= bounds.upperBound, !range.isEmpty else { return false }
        // A blob stands whole as a value; in raw bytes it is read as text would be.
        if form == .blob, value != nil { return range == bounds && !truncated }
        let reader = Reader(buffer: buffer, form: form == .blob ? .utf8 : form, bounds: bounds)
        return reader.isOpen(before: range.lowerBound, first: reader.scalar(startingAt: range.lowerBound))
            && (truncated && range.upperBound == bounds.upperBound
                || reader.isOpen(after: range.upperBound, last: reader.scalar(endingAt: range.upperBound)))
    }

    /// Whether a scalar is part of a word: a letter, a digit or a combining mark, of any script.
    static func isWord(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
        }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return properties.isAlphabetic || properties.numericType != nil
        }
    }

    static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return (0x30...0x39).contains(scalar.value) || (!scalar.isASCII && scalar.properties.numericType == .decimal)
    }

    /// Joiners that continue a word into the next one: `Marie-Claire`, `a+b/c` (base64), `x.y@z`.
    static let joiners: Set<UInt32> = [0x2D, 0x5F, 0x2B, 0x2F, 0x2E, 0x40]
    /// Joiners between two digits only: `12,5`, `06:59`.
    static let digitJoiners: Set<UInt32> = [0x2C, 0x3A]
    /// Joiners that base64 may put several of in a row (`+/`, `-_` in its URL form).
    static let chainJoiners: Set<UInt32> = [0x2B, 0x2F, 0x2D, 0x5F]
    static let maximumJoiners = 3

    /// Reads the characters around an occurrence, in the pattern's form.
    private struct Reader {
        let buffer: UnsafeRawBufferPointer
        let form: Form
        let bounds: Range<Int>

        /// The code unit at `offset` (which must be in bounds).
        func unit(at offset: Int) -> UInt32 {
            switch form {
            case .utf16LE: return UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8
            case .utf16BE: return UInt32(buffer[offset]) << 8 | UInt32(buffer[offset + 1])
            default: return UInt32(buffer[offset])
            }
        }

        /// The character that starts at `offset`, `nil` at the end, or where the bytes are no character.
        func scalar(startingAt offset: Int) -> Unicode.Scalar? {
            let width = form.unit
            guard offset >= bounds.lowerBound, offset + width <= bounds.upperBound else { return nil }
            let first = unit(at: offset)
            if width == 2 {
                guard (0xD800...0xDBFF).contains(first) else { return (0xDC00...0xDFFF).contains(first) ? nil : Unicode.Scalar(first) }
                guard offset + 4 <= bounds.upperBound else { return nil }
                let second = unit(at: offset + 2)
                guard (0xDC00...0xDFFF).contains(second) else { return nil }
                return Unicode.Scalar(0x10000 + (first - 0xD800) << 10 + (second - 0xDC00))
            }
            let count = first < 0x80 ? 1 : first >> 5 == 0b110 ? 2 : first >> 4 == 0b1110 ? 3 : first >> 3 == 0b11110 ? 4 : 0
            guard count > 0, offset + count <= bounds.upperBound else { return nil }
            return decode(offset, count)
        }

        /// The character that ends right before `offset`, `nil` at the start, or where the bytes are no character.
        func scalar(endingAt offset: Int) -> Unicode.Scalar? {
            let width = form.unit
            guard offset - width >= bounds.lowerBound, offset <= bounds.upperBound else { return nil }
            if width == 2 {
                let last = unit(at: offset - 2)
                guard (0xDC00...0xDFFF).contains(last) else { return (0xD800...0xDBFF).contains(last) ? nil : Unicode.Scalar(last) }
                guard offset - 4 >= bounds.lowerBound else { return nil }
                return scalar(startingAt: offset - 4)
            }
            // Back over continuation bytes to the lead byte, at most three.
            var start = offset - 1
            while start > bounds.lowerBound && offset - start < 4 && buffer[start] & 0xC0 == 0x80 { start -= 1 }
            guard let scalar = scalar(startingAt: start), start + String(scalar).utf8.count == offset else { return nil }
            return scalar
        }

        private func decode(_ offset: Int, _ count: Int) -> Unicode.Scalar? {
            var decoder = UTF8()
            var iterator = UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)]).makeIterator()
            guard case .scalarValue(let scalar) = decoder.decode(&iterator), iterator.next() == nil else { return nil }
            return scalar
        }

        /// Whether nothing continues the word that starts with `first` at `offset` backwards.
        func isOpen(before offset: Int, first: Unicode.Scalar?) -> Bool {
            guard WholeValue.isWord(first) else { return true }
            return !continues(first, scalars: { self.scalar(endingAt: offset - $0 * form.unit) })
        }

        /// Whether nothing continues the word that ends with `last` at `offset` forwards.
        func isOpen(after offset: Int, last: Unicode.Scalar?) -> Bool {
            guard WholeValue.isWord(last) else { return true }
            return !continues(last, scalars: { self.scalar(startingAt: offset + $0 * form.unit) })
        }

        /// Whether the characters next to an edge, `scalars(0)` the nearest, continue
        /// its word: a letter or a digit; a joiner (up to ``maximumJoiners`` of
        /// base64's `+/-_` in a row, as `a/+b`) then one; a digit joiner then a
        /// digit, next to a digit.
        private func continues(_ edge: Unicode.Scalar?, scalars: (Int) -> Unicode.Scalar?) -> Bool {
            guard let next = scalars(0) else { return false }
            if WholeValue.isWord(next) { return true }
            if digitJoiners.contains(next.value) { return WholeValue.isDigit(edge) && WholeValue.isDigit(scalars(1)) }
            guard joiners.contains(next.value) else { return false }
            var step = 1
            while step < maximumJoiners, let further = scalars(step), chainJoiners.contains(further.value), chainJoiners.contains(next.value) { step += 1 }
            return WholeValue.isWord(scalars(step))
        }
    }
}
