import CSQLite
#if canImport(Glibc)
import Glibc
#endif
import FixtureKitSystem
import FixtureKitSQLite

/// A rule bound to a column of the store being anonymized. A class: the SQL
/// functions read it once per value, and a reference costs one retain.
final class BoundRule {
    /// Its position in the session: the first argument of the SQL functions.
    var index: Int
    var table: String
    var column: String
    var rule: ColumnRule
    /// What the keyed hash is taken over before the attempt and the value: the
    /// strategy's tag, then the length and bytes of its domain (the pseudonym's
    /// domain, the fake's kind, the shift-date's domain, the noisy column).
    var derivationPrefix: [UInt8]
    /// Rules with equal outputs for equal inputs share this (for the cache).
    var cacheID: Int
    /// The temporary table mapping originals to unique pseudonyms, when the
    /// rule's domain holds a UNIQUE column.
    var mapTable: String?
    var columnUnique: Bool
    /// The mask character's UTF-8 bytes.
    let maskBytes: [UInt8]
    /// The strategy as the callbacks read it: options of plain values, so that
    /// reading it per value retains nothing.
    let plan: Plan

    init(index: Int, table: String, column: String, rule: ColumnRule, derivationPrefix: [UInt8], cacheID: Int, mapTable: String?, columnUnique: Bool) {
        self.index = index
        self.table = table
        self.column = column
        self.rule = rule
        self.derivationPrefix = derivationPrefix
        self.cacheID = cacheID
        self.mapTable = mapTable
        self.columnUnique = columnUnique
        if case .mask(_, _, let character) = rule.strategy { maskBytes = Array(character.utf8) } else { maskBytes = [] }
        plan = Plan(rule.strategy)
    }

    /// A strategy without its strings: what ``AnonymizationSession/transform(_:_:group:attempt:)`` switches on.
    enum Plan {
        case keep, null, value
        case mask(keepFirst: Int, keepLast: Int)
        case pseudonym(PseudonymFormat, length: Int)
        case fake(FakeKind)
        case shiftDate(maxDays: Int, unit: DateUnit)
        case noise(ratio: Double, amount: Double?)

        init(_ strategy: Strategy) {
            switch strategy {
            case .keep: self = .keep
            case .null: self = .null
            case .value: self = .value
            case .mask(let keepFirst, let keepLast, _): self = .mask(keepFirst: keepFirst, keepLast: keepLast)
            case .pseudonym(let format, _, let length): self = .pseudonym(format, length: length)
            case .fake(let kind): self = .fake(kind)
            case .shiftDate(_, let maxDays, let unit, _): self = .shiftDate(maxDays: maxDays, unit: unit)
            case .noise(let ratio, let amount): self = .noise(ratio: ratio, amount: amount)
            }
        }

        /// Keyed strategies give the same text for the same text: worth a cache.
        var isCacheable: Bool {
            switch self {
            case .pseudonym, .fake: true
            default: false
            }
        }
    }

    var name: String { "\(table).\(column)" }
}

/// Whether two byte sequences are equal, with memcmp.
@inline(__always)
func equalBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
    lhs.count == rhs.count && (lhs.count == 0 || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0)
}

/// The state of one anonymization: the key, the bound rules, what changed, and
/// the spool of replaced values. SQLite calls back into it from the
/// application-defined functions `fixturekit_anonymize` and `fixturekit_mapped`.
///
/// Not `Sendable`: it lives on the thread of its one connection.
final class AnonymizationSession {
    /// The prefix of the placeholder a UNIQUE column holds between the two
    /// statements that rewrite it (SQLite checks UNIQUE row by row, so a new
    /// value may not equal an old one not yet rewritten).
    static let pendingPrefix = "\u{1}fixturekit:"
    /// Collisions tried before a domain is said to be too small for its values.
    static let maximumAttempts: UInt32 = 1000

    let key: AnonymizationKey
    let rules: [BoundRule]
    let spool: LeakSpool
    /// The first error raised inside a callback, with the column it concerns.
    var failure: String?

    /// What the callbacks write on every value. Reached through a pointer: a
    /// stored property of a class costs a dynamic exclusivity check on each
    /// access, and the callbacks run millions of times.
    struct Scratch {
        /// The bytes of the last text or blob output.
        var output: [UInt8] = []
        /// The message of the last keyed hash: derivation prefix, attempt, value.
        var message = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        let digest = UnsafeMutablePointer<UInt8>.allocate(capacity: HMACSHA256.byteCount)
        var cache = OutputCache()
        /// Rows changed, by rule index.
        var changed: [Int]
        /// What the text fast path needs of each rule.
        let textRules: UnsafeMutableBufferPointer<TextRule>
        /// The key's HMAC and the spool's files, which the session keeps alive:
        /// unmanaged here, so that calling them costs no reference counting.
        let hmac: Unmanaged<HMACSHA256>
        let originals: Unmanaged<SpoolFile>
        let written: Unmanaged<SpoolFile>
        /// The spool keeps every value as it is (no UTF-16 forms to add).
        let spoolsBytesAsTheyAre: Bool
        /// Outputs computed ahead, kept alive by the engine while it is attached.
        var prefetch: Unmanaged<KeyedPrefetch>?
        /// Per rule: the text values the fast path has seen, for ``prefetch``.
        var sequences: [Int]

        func release() {
            message.deallocate()
            digest.deallocate()
            for rule in textRules { rule.prefix.deallocate() }
            textRules.deallocate()
        }
    }

    /// What ``anonymizeText(_:_:rule:)`` needs of a rule: plain values only.
    struct TextRule {
        enum Kind {
            /// The general path handles the rule.
            case general
            case pseudonym(PseudonymFormat, length: Int)
            case fake(FakeKind)
            /// A mask by a one-byte character, of text that is ASCII.
            case mask(keepFirst: Int, keepLast: Int, character: UInt8)
        }

        var kind: Kind
        /// The owner of the rule's outputs in the cache.
        var cacheOwner: Int
        /// The rule's derivation prefix, allocated for the session's lifetime.
        var prefix: UnsafeRawBufferPointer

        init(_ rule: BoundRule) {
            cacheOwner = rule.cacheID * 4 + 1
            let prefix = UnsafeMutableRawBufferPointer.allocate(byteCount: rule.derivationPrefix.count, alignment: 1)
            prefix.copyBytes(from: rule.derivationPrefix)
            self.prefix = UnsafeRawBufferPointer(prefix)
            switch rule.plan {
            case .pseudonym(let format, let length): kind = .pseudonym(format, length: length)
            case .fake(let kind): self.kind = .fake(kind)
            case .mask(let keepFirst, let keepLast) where rule.maskBytes.count == 1:
                kind = .mask(keepFirst: keepFirst, keepLast: keepLast, character: rule.maskBytes[0])
            default: kind = .general
            }
        }
    }

    private let scratch: UnsafeMutablePointer<Scratch>
    /// Rows changed, by rule index.
    var changed: [Int] { scratch.pointee.changed }
    /// The bytes of the last text or blob output.
    var outputBytes: [UInt8] { scratch.pointee.output }
    private var lookups: [OpaquePointer?]
    private var unpendLookups: [OpaquePointer?]

    init(key: AnonymizationKey, rules: [BoundRule], spool: LeakSpool) {
        self.key = key
        self.rules = rules
        self.spool = spool
        scratch = .allocate(capacity: 1)
        let textRules = UnsafeMutableBufferPointer<TextRule>.allocate(capacity: rules.count)
        _ = textRules.initialize(from: rules.map(TextRule.init))
        scratch.initialize(to: Scratch(
            changed: Array(repeating: 0, count: rules.count), textRules: textRules, hmac: .passUnretained(key.hmac),
            originals: .passUnretained(spool.originals), written: .passUnretained(spool.written), spoolsBytesAsTheyAre: !spool.utf16,
            sequences: Array(repeating: 0, count: rules.count)))
        scratch.pointee.output.reserveCapacity(4096)
        lookups = Array(repeating: nil, count: rules.count)
        unpendLookups = Array(repeating: nil, count: rules.count)
    }

    deinit {
        finalizeStatements()
        scratch.pointee.cache.release()
        scratch.pointee.release()
        scratch.deinitialize(count: 1)
        scratch.deallocate()
    }

    /// Makes the fast path take keyed outputs from `prefetch`, which the caller
    /// keeps alive until it attaches `nil`.
    func attach(_ prefetch: KeyedPrefetch?) {
        scratch.pointee.prefetch = prefetch.map { .passUnretained($0) }
    }

    /// Tells the prefetch that the statement rewriting `rules` is done.
    func finished(_ rules: [BoundRule]) {
        scratch.pointee.prefetch?._withUnsafeGuaranteedRef { $0.finished(rules) }
    }

    /// Frees the output cache once no value is rewritten any more: its memory
    /// then serves the leak scan (a later callback would allocate it again).
    func releaseCache() {
        scratch.pointee.cache.release()
    }

    /// Finalizes the statements the callbacks prepared; before the connection closes.
    func finalizeStatements() {
        for statement in lookups + unpendLookups where statement != nil { sqlite3_finalize(statement) }
        lookups = Array(repeating: nil, count: rules.count)
        unpendLookups = Array(repeating: nil, count: rules.count)
    }

    // MARK: - Registration

    /// Registers the functions on `database`, which must not outlive the session.
    func register(on database: Database) throws(SQLiteError) {
        let session = Unmanaged.passUnretained(self).toOpaque()
        let functions: [(String, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("fixturekit_anonymize", { context, count, arguments in
                AnonymizationSession.from(context).anonymize(context, Int(count), arguments)
            }),
            ("fixturekit_mapped", { context, count, arguments in
                AnonymizationSession.from(context).mapped(context, Int(count), arguments)
            }),
            ("fixturekit_unpend", { context, count, arguments in
                AnonymizationSession.from(context).unpend(context, Int(count), arguments)
            }),
        ]
        for (name, function) in functions {
            // Not SQLITE_DETERMINISTIC: each call counts and records what it replaced.
            let code = sqlite3_create_function_v2(database.handle, name, -1, SQLITE_UTF8 | SQLITE_DIRECTONLY, session, function, nil, nil, nil)
            guard code == SQLITE_OK else { throw SQLiteError(connection: database.handle, code: code) }
        }
    }

    private static func from(_ context: OpaquePointer?) -> AnonymizationSession {
        Unmanaged<AnonymizationSession>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
    }

    private func fail(_ context: OpaquePointer?, _ rule: BoundRule?, _ why: String) {
        let message = rule.map { "\($0.name): \(why)" } ?? why
        if failure == nil { failure = message }
        sqlite3_result_error(context, message, -1)
    }

    // MARK: - Values

    /// A value as the transforms see it.
    enum Input {
        case text(UnsafeBufferPointer<UInt8>)
        case blob(UnsafeBufferPointer<UInt8>)
        case integer(Int64)
        case real(Double)

        /// 0 text, 1 blob, 2 integer, 3 real: part of the cache's key.
        var storageClass: Int {
            switch self {
            case .text: 0
            case .blob: 1
            case .integer: 2
            case .real: 3
            }
        }
    }

    /// What a transform gives back; text and blob bytes are in `output`.
    enum Output: Equatable {
        case text, blob, integer(Int64), real(Double), null, unchanged
    }

    /// Reads an SQLite value, or `nil` for NULL.
    /// The buffers point into SQLite's memory, valid until the value changes.
    static func input(_ value: OpaquePointer?) -> Input? {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let pointer = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            return .text(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
        case SQLITE_BLOB:
            let pointer = sqlite3_value_blob(value)?.assumingMemoryBound(to: UInt8.self)
            let count = Int(sqlite3_value_bytes(value))
            return .blob(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
        default: return nil
        }
    }

    /// The keyed stream of a rule's derivation prefix, `attempt` and `value`:
    /// the message is assembled in one buffer and hashed in one update.
    private func stream(_ prefix: [UInt8], attempt: UInt32, _ value: UnsafeRawBufferPointer) -> KeyedStream? {
        prefix.withUnsafeBytes { Self.stream(scratch, prefix: $0, attempt: attempt, value) }
    }

    @inline(__always)
    private static func stream(_ scratch: UnsafeMutablePointer<Scratch>, prefix: UnsafeRawBufferPointer, attempt: UInt32, _ value: UnsafeRawBufferPointer) -> KeyedStream? {
        let length = prefix.count + 4 + value.count
        if scratch.pointee.message.count < length {
            scratch.pointee.message.deallocate()
            scratch.pointee.message = .allocate(byteCount: max(length, 2 * scratch.pointee.message.count), alignment: 16)
        }
        let message = scratch.pointee.message.baseAddress!
        if let base = prefix.baseAddress { message.copyMemory(from: base, byteCount: prefix.count) }
        (message + prefix.count).storeBytes(of: attempt.bigEndian, as: UInt32.self)
        if let base = value.baseAddress { (message + prefix.count + 4).copyMemory(from: base, byteCount: value.count) }
        let digest = scratch.pointee.digest
        guard scratch.pointee.hmac._withUnsafeGuaranteedRef({ $0.authenticate(UnsafeRawBufferPointer(start: message, count: length), into: digest) }) else { return nil }
        return KeyedStream(digest: digest)
    }

    /// The bytes a derivation starts with.
    static func derivationPrefix(_ tag: DerivationTag, domain: String) -> [UInt8] {
        var prefix = [tag.rawValue]
        withUnsafeBytes(of: UInt32(domain.utf8.count).bigEndian) { prefix.append(contentsOf: $0) }
        prefix.append(contentsOf: domain.utf8)
        return prefix
    }

    /// The text of a number, as SQLite writes it, for the strategies that work on text.
    private func withText<T>(_ input: Input, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        switch input {
        case .text(let bytes), .blob(let bytes): return body(bytes)
        case .integer(let value): return Array(String(value).utf8).withUnsafeBufferPointer(body)
        case .real(let value): return Array(String(value).utf8).withUnsafeBufferPointer(body)
        }
    }

    /// Applies `rule` to one value (not NULL).
    /// - Returns: the output, or a reason when the value does not fit the rule.
    func transform(_ rule: BoundRule, _ input: Input, group: Input?, attempt: UInt32 = 0) -> Result<Output, TransformFailure> {
        let scratch = scratch
        scratch.pointee.output.removeAll(keepingCapacity: true)
        switch rule.plan {
        case .keep:
            return .success(.unchanged)
        case .null:
            return .success(.null)
        case .value:
            guard case .value(let constant) = rule.rule.strategy else { return .success(.null) }
            switch constant {
            case .null: return .success(.null)
            case .bool(let value): return .success(.integer(value ? 1 : 0))
            case .number(let value):
                if value == value.rounded(), let integer = Int64(exactly: value) { return .success(.integer(integer)) }
                return .success(.real(value))
            case .string(let value):
                scratch.pointee.output.append(contentsOf: value.utf8)
                return .success(.text)
            case .array, .object:
                return .success(.null)
            }
        case .mask(let keepFirst, let keepLast):
            var isBlob = false
            if case .blob = input { isBlob = true }
            withText(input) { bytes in
                ValueTransforms.mask(keepFirst: keepFirst, keepLast: keepLast, character: rule.maskBytes, input: bytes, isBlob: isBlob, into: &scratch.pointee.output)
            }
            return .success(isBlob ? .blob : .text)
        case .pseudonym(let format, let length):
            return keyed(rule, input, attempt: attempt) { stream, bytes in
                ValueTransforms.pseudonym(format, length: length, attempt: attempt, input: bytes, stream: &stream, into: &scratch.pointee.output)
                if format == .digits, case .integer = input, let number = Int64(String(decoding: scratch.pointee.output, as: UTF8.self)) {
                    return .integer(number)
                }
                return .text
            }
        case .fake(let kind):
            return keyed(rule, input, attempt: attempt) { stream, bytes in
                ValueTransforms.fake(kind, input: bytes, stream: &stream, into: &scratch.pointee.output)
                return .text
            }
        case .shiftDate(let maxDays, let unit):
            let days = dayOffset(rule, group: group, maxDays: maxDays)
            guard let days else { return .failure(.crypto) }
            switch input {
            case .integer(let value):
                let (delta, overflow) = Int64(days).multipliedReportingOverflow(by: Int64(unit.perDay))
                let (shifted, overflow2) = value.addingReportingOverflow(delta)
                guard !overflow && !overflow2 else { return .failure(.notADate("an integer too large to shift")) }
                return .success(.integer(shifted))
            case .real(let value):
                return .success(.real(value + Double(days) * unit.perDay))
            case .text(let bytes):
                guard DateShift.shift(bytes, days: days, into: &scratch.pointee.output) else {
                    return .failure(.notADate("a text that is not an ISO-8601 date (YYYY-MM-DD[THH:MM[:SS[.SSS]]][Z|±HH:MM])"))
                }
                return .success(.text)
            case .blob:
                return .failure(.notADate("a blob"))
            }
        case .noise(let ratio, let amount):
            let number: Double
            switch input {
            case .integer(let value): number = Double(value)
            case .real(let value): number = value
            case .text: return .failure(.notANumber("text"))
            case .blob: return .failure(.notANumber("a blob"))
            }
            var bits = number.bitPattern.littleEndian
            guard var stream = withUnsafeBytes(of: &bits, { stream(rule.derivationPrefix, attempt: 0, $0) }) else { return .failure(.crypto) }
            let spread = amount ?? abs(number) * ratio
            let noisy = number + (stream.nextUnit() * 2 - 1) * spread
            if case .integer = input {
                let rounded = noisy.rounded()
                guard rounded.isFinite, let integer = Int64(exactly: max(min(rounded, 9.2e18), -9.2e18)) else { return .success(.unchanged) }
                return .success(.integer(integer))
            }
            return .success(.real(noisy))
        }
    }

    /// Why a value does not fit its rule.
    enum TransformFailure: Error {
        case notADate(String)
        case notANumber(String)
        case crypto

        var description: String {
            switch self {
            case .notADate(let what): "shift-date found \(what)"
            case .notANumber(let what): "noise needs numbers, found \(what)"
            case .crypto: "libcrypto failed to compute an HMAC"
            }
        }
    }

    /// A keyed strategy (pseudonym, fake): blobs become keyed bytes of the same
    /// length, empty values stay empty, text goes through `render`.
    private func keyed(_ rule: BoundRule, _ input: Input, attempt: UInt32, _ render: (inout KeyedStream, UnsafeBufferPointer<UInt8>) -> Output) -> Result<Output, TransformFailure> {
        let scratch = scratch
        return withText(input) { bytes in
            guard !bytes.isEmpty else { return .success(.unchanged) }
            guard var stream = stream(rule.derivationPrefix, attempt: attempt, UnsafeRawBufferPointer(bytes)) else { return .failure(.crypto) }
            if case .blob = input {
                for _ in 0..<bytes.count { scratch.pointee.output.append(UInt8(truncatingIfNeeded: stream.next())) }
                return .success(.blob)
            }
            return .success(render(&stream, bytes))
        }
    }

    /// One offset per value of the group column (one for the whole rule without one).
    private func dayOffset(_ rule: BoundRule, group: Input?, maxDays: Int) -> Int? {
        var groupBytes: [UInt8] = []
        if let group {
            groupBytes = [UInt8(group.storageClass)]
            withText(group) { groupBytes.append(contentsOf: $0) }
        }
        let scratch = scratch
        let owner = rule.cacheID * 4
        if let slot = groupBytes.withUnsafeBufferPointer({ scratch.pointee.cache.lookup(owner: owner, $0) }) {
            return scratch.pointee.cache.output(slot).withUnsafeBytes { $0.loadUnaligned(as: Int.self) }
        }
        guard var stream = groupBytes.withUnsafeBytes({ stream(rule.derivationPrefix, attempt: 0, $0) }) else { return nil }
        let days = ValueTransforms.dayOffset(&stream, maxDays: maxDays)
        groupBytes.withUnsafeBufferPointer { key in
            withUnsafeBytes(of: days) { scratch.pointee.cache.store(owner: owner, key, output: $0.assumingMemoryBound(to: UInt8.self)) }
        }
        return days
    }

    // MARK: - Callbacks

    /// `fixturekit_anonymize(rule, value [, group])`: the value rewritten by the rule.
    private func anonymize(_ context: OpaquePointer?, _ count: Int, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, count >= 2 else { return fail(context, nil, "fixturekit_anonymize: wrong arguments") }
        let index = Int(sqlite3_value_int64(arguments[0]))
        guard rules.indices.contains(index) else { return fail(context, nil, "fixturekit_anonymize: no rule \(index)") }
        let scratch = scratch
        if count == 2, sqlite3_value_type(arguments[1]) == SQLITE_TEXT, Self.anonymizeText(context, arguments[1], rule: index, scratch) { return }
        let rule = rules[index]
        guard let input = Self.input(arguments[1]) else { return sqlite3_result_null(context) }
        let group = count >= 3 ? Self.input(arguments[2]) : nil
        // Keyed strategies on text: the same input gives the same output, so a
        // repeated value is taken from the cache, and was recorded the first time.
        var cacheable = false
        if case .text(let bytes) = input, rule.plan.isCacheable {
            cacheable = true
            if let slot = scratch.pointee.cache.lookup(owner: rule.cacheID * 4 + 1, bytes) {
                let cached = scratch.pointee.cache.output(slot)
                if !equalBytes(bytes, cached) { scratch.pointee.changed[index] += 1 }
                return Self.setResult(context, .text(cached))
            }
        }
        switch transform(rule, input, group: group) {
        case .failure(let failure):
            fail(context, rule, failure.description)
        case .success(let result):
            if cacheable, result == .text, case .text(let bytes) = input {
                scratch.pointee.output.withUnsafeBufferPointer { scratch.pointee.cache.store(owner: rule.cacheID * 4 + 1, bytes, output: $0) }
            }
            finish(context, rule, input, result)
        }
    }

    /// The common case of ``anonymize(_:_:_:)``: a text value under a keyed rule
    /// or a mask of ASCII, without the general path's enums, closures and
    /// reference counting. Gives the same output, counts and spool records.
    /// - Returns: `false` when the general path must handle the value.
    private static func anonymizeText(_ context: OpaquePointer?, _ value: OpaquePointer?, rule index: Int, _ scratch: UnsafeMutablePointer<Scratch>) -> Bool {
        let rule = scratch.pointee.textRules[index]
        guard scratch.pointee.spoolsBytesAsTheyAre else { return false }
        let pointer = sqlite3_value_text(value)
        let input = UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_value_bytes(value)))
        scratch.pointee.output.removeAll(keepingCapacity: true)
        switch rule.kind {
        case .general:
            return false
        case .mask(let keepFirst, let keepLast, let character):
            guard !input.contains(where: { $0 >= 0x80 }) else { return false }
            ValueTransforms.mask(keepFirst: keepFirst, keepLast: keepLast, fill: character, input: input, into: &scratch.pointee.output)
        case .pseudonym, .fake:
            // Every text value counts in the sequence the prefetch follows.
            let sequence = scratch.pointee.sequences[index]
            scratch.pointee.sequences[index] = sequence + 1
            scratch.pointee.prefetch?._withUnsafeGuaranteedRef { $0.skip(rule: index, sequence: sequence) }
            guard !input.isEmpty else { return false }
            if let slot = scratch.pointee.cache.lookup(owner: rule.cacheOwner, input) {
                let cached = scratch.pointee.cache.output(slot)
                if !equalBytes(input, cached) { scratch.pointee.changed[index] += 1 }
                setResult(context, .text(cached))
                return true
            }
            let prefetched = scratch.pointee.prefetch?._withUnsafeGuaranteedRef {
                $0.take(rule: index, sequence: sequence, input: input, into: &scratch.pointee.output)
            } ?? false
            if !prefetched {
                guard var stream = stream(scratch, prefix: rule.prefix, attempt: 0, UnsafeRawBufferPointer(input)) else { return false }
                if case .pseudonym(let format, let length) = rule.kind {
                    ValueTransforms.pseudonym(format, length: length, attempt: 0, input: input, stream: &stream, into: &scratch.pointee.output)
                } else if case .fake(let kind) = rule.kind {
                    ValueTransforms.fake(kind, input: input, stream: &stream, into: &scratch.pointee.output)
                }
            }
            scratch.pointee.output.withUnsafeMutableBufferPointer { scratch.pointee.cache.store(owner: rule.cacheOwner, input, output: UnsafeBufferPointer($0)) }
        }
        // (The mutable form only borrows the array: the other one would retain it.)
        let isChanged = scratch.pointee.output.withUnsafeMutableBufferPointer { output in
            let output = UnsafeBufferPointer(output)
            setResult(context, .text(output))
            guard !equalBytes(input, output) else { return false }
            if output.count >= PatternIndex.minimumBytes {
                scratch.pointee.written._withUnsafeGuaranteedRef { $0.appendValue(nil, UnsafeRawBufferPointer(output)) }
            }
            return true
        }
        guard isChanged else { return true }
        scratch.pointee.changed[index] += 1
        if input.count >= PatternIndex.minimumBytes {
            scratch.pointee.originals._withUnsafeGuaranteedRef { $0.appendValue(UInt32(index), UnsafeRawBufferPointer(input)) }
        }
        return true
    }

    /// Sets the function's result (without a context, only counts), counts a
    /// change and spools what was replaced.
    private func finish(_ context: OpaquePointer?, _ rule: BoundRule, _ input: Input, _ result: Output) {
        let scratch = scratch
        var isChanged = true
        switch result {
        case .unchanged:
            isChanged = false
            if context != nil { Self.setResult(context, input) }
        case .null:
            if context != nil { sqlite3_result_null(context) }
        case .integer(let value):
            if case .integer(let old) = input, old == value { isChanged = false }
            if context != nil { sqlite3_result_int64(context, value) }
        case .real(let value):
            if case .real(let old) = input, old == value { isChanged = false }
            if context != nil { sqlite3_result_double(context, value) }
        case .text, .blob:
            scratch.pointee.output.withUnsafeBufferPointer { bytes in
                switch input {
                case .text(let old) where result == .text: isChanged = !equalBytes(old, bytes)
                case .blob(let old) where result == .blob: isChanged = !equalBytes(old, bytes)
                default: break
                }
                if context != nil { Self.setResult(context, result == .text ? .text(bytes) : .blob(bytes)) }
                if isChanged { spool.addWritten(UnsafeRawBufferPointer(bytes), isText: result == .text) }
            }
        }
        guard isChanged else { return }
        scratch.pointee.changed[rule.index] += 1
        switch input {
        case .text(let bytes): spool.addOriginal(column: rule.index, UnsafeRawBufferPointer(bytes), isText: true)
        case .blob(let bytes): spool.addOriginal(column: rule.index, UnsafeRawBufferPointer(bytes), isText: false)
        default: break
        }
    }

    /// An empty text or blob needs a pointer all the same: SQLite takes NULL for NULL.
    private static let empty: [UInt8] = [0]

    static func setResult(_ context: OpaquePointer?, _ input: Input) {
        switch input {
        case .text(let bytes):
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return empty.withUnsafeBufferPointer { sqlite3_result_text(context, UnsafeRawPointer($0.baseAddress)?.assumingMemoryBound(to: CChar.self), 0, fixturekit_sqlite_transient()) }
            }
            sqlite3_result_text(context, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(bytes.count), fixturekit_sqlite_transient())
        case .blob(let bytes):
            guard let base = bytes.baseAddress, bytes.count > 0 else { return sqlite3_result_zeroblob(context, 0) }
            sqlite3_result_blob(context, UnsafeRawPointer(base), Int32(bytes.count), fixturekit_sqlite_transient())
        case .integer(let value): sqlite3_result_int64(context, value)
        case .real(let value): sqlite3_result_double(context, value)
        }
    }

    /// `fixturekit_mapped(rule, value, pending)`: the value's unique pseudonym from
    /// the rule's map; with `pending` 1, a placeholder that names it instead.
    private func mapped(_ context: OpaquePointer?, _ count: Int, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, count == 3 else { return fail(context, nil, "fixturekit_mapped: wrong arguments") }
        let index = Int(sqlite3_value_int64(arguments[0]))
        guard rules.indices.contains(index), let table = rules[index].mapTable else { return fail(context, nil, "fixturekit_mapped: no rule \(index)") }
        let rule = rules[index]
        guard let input = Self.input(arguments[1]) else { return sqlite3_result_null(context) }
        let pending = sqlite3_value_int64(arguments[2]) == 1
        guard let statement = prepared(&lookups[index], "SELECT pseudonym, rowid FROM temp.\(quotedIdentifier(table)) WHERE original = ?1", context, rule) else { return }
        sqlite3_reset(statement)
        sqlite3_bind_value(statement, 1, arguments[1])
        guard sqlite3_step(statement) == SQLITE_ROW, let value = Self.input(sqlite3_column_value(statement, 0)) else {
            // Values the map leaves out (empty ones) stay as they are.
            Self.setResult(context, input)
            return
        }
        let scratch = scratch
        scratch.pointee.output.removeAll(keepingCapacity: true)
        let result: Output
        switch value {
        case .text(let bytes): scratch.pointee.output.append(contentsOf: bytes); result = .text
        case .blob(let bytes): scratch.pointee.output.append(contentsOf: bytes); result = .blob
        case .integer(let number): result = .integer(number)
        case .real(let number): result = .real(number)
        }
        let mapRow = sqlite3_column_int64(statement, 1)
        if pending {
            // Count and spool as the final value, then write the placeholder.
            finish(nil, rule, input, result)
            let placeholder = Array((Self.pendingPrefix + String(mapRow)).utf8)
            placeholder.withUnsafeBufferPointer { Self.setResult(context, .text($0)) }
        } else {
            finish(context, rule, input, result)
        }
        sqlite3_reset(statement)
    }

    /// `fixturekit_unpend(rule, placeholder)`: the pseudonym a placeholder names.
    private func unpend(_ context: OpaquePointer?, _ count: Int, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let arguments, count == 2 else { return fail(context, nil, "fixturekit_unpend: wrong arguments") }
        let index = Int(sqlite3_value_int64(arguments[0]))
        guard rules.indices.contains(index), let table = rules[index].mapTable,
              case .text(let bytes)? = Self.input(arguments[1]) else { return fail(context, nil, "fixturekit_unpend: wrong arguments") }
        let prefix = Array(Self.pendingPrefix.utf8)
        guard bytes.starts(with: prefix), let mapRow = Int64(String(decoding: bytes[prefix.count...], as: UTF8.self)) else {
            return Self.setResult(context, .text(bytes))
        }
        guard let statement = prepared(&unpendLookups[index], "SELECT pseudonym FROM temp.\(quotedIdentifier(table)) WHERE rowid = ?1", context, rules[index]) else { return }
        sqlite3_reset(statement)
        sqlite3_bind_int64(statement, 1, mapRow)
        guard sqlite3_step(statement) == SQLITE_ROW else { return fail(context, rules[index], "a placeholder names no pseudonym") }
        sqlite3_result_value(context, sqlite3_column_value(statement, 0))
        sqlite3_reset(statement)
    }

    private func prepared(_ slot: inout OpaquePointer?, _ sql: String, _ context: OpaquePointer?, _ rule: BoundRule) -> OpaquePointer? {
        if let slot { return slot }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(sqlite3_context_db_handle(context), sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else {
            sqlite3_finalize(statement)
            fail(context, rule, "cannot read its pseudonym map")
            return nil
        }
        slot = statement
        return statement
    }
}

/// A direct-mapped cache of keyed outputs: real data repeats (names, cities,
/// the e-mail of every order of one customer), and a repeated value then costs
/// no HMAC. A rule whose values hardly repeat stops using it.
///
/// One flat allocation of fixed-size slots (a key and its output, each up to
/// ``maximumBytes``; longer ones are not cached), made on the first store: a
/// lookup or a store copies bytes and allocates nothing.
struct OutputCache {
    static let slotCount = 1 << 16
    /// The longest key, and the longest output, a slot holds.
    static let maximumBytes = 64
    /// Lookups of one owner before its hit rate is judged.
    static let probation = 4096
    /// An owner needs at least one hit in this many lookups to keep the cache.
    static let minimumHitRatio = 16

    /// Per slot: owner + 1 (0: empty), key length, output length.
    private static let headerBytes = 16
    private static let slotBytes = headerBytes + 2 * maximumBytes

    private var slots: UnsafeMutableRawPointer?
    /// Lookups and hits by owner, and whether the owner gave up on the cache.
    private var lookups: [Int] = []
    private var hits: [Int] = []
    private var disabled: [Bool] = []

    /// Frees the slots; the cache is empty afterwards.
    mutating func release() {
        slots?.deallocate()
        slots = nil
    }

    private static func slot(_ owner: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(truncatingIfNeeded: owner)
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return Int(truncatingIfNeeded: hash >> 48) & (slotCount - 1)
    }

    private func isDisabled(_ owner: Int) -> Bool { owner < disabled.count && disabled[owner] }

    /// The slot holding `bytes`' output for `owner`, if cached.
    mutating func lookup(owner: Int, _ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if owner >= lookups.count {
            lookups += Array(repeating: 0, count: owner + 1 - lookups.count)
            hits += Array(repeating: 0, count: owner + 1 - hits.count)
            disabled += Array(repeating: false, count: owner + 1 - disabled.count)
        }
        guard !disabled[owner] else { return nil }
        let slot = Self.slot(owner, bytes)
        var hit = false
        if let slots, bytes.count <= Self.maximumBytes {
            let base = slots + slot * Self.slotBytes
            hit = base.load(as: Int32.self) == Int32(truncatingIfNeeded: owner + 1)
                && Int(base.load(fromByteOffset: 4, as: Int32.self)) == bytes.count
                && (bytes.isEmpty || memcmp(base + Self.headerBytes, bytes.baseAddress!, bytes.count) == 0)
        }
        lookups[owner] += 1
        if hit { hits[owner] += 1 }
        if lookups[owner] == Self.probation && hits[owner] * Self.minimumHitRatio < lookups[owner] { disabled[owner] = true }
        return hit ? slot : nil
    }

    /// The output a slot that ``lookup(owner:_:)`` returned holds.
    func output(_ slot: Int) -> UnsafeBufferPointer<UInt8> {
        let base = slots! + slot * Self.slotBytes
        let count = Int(base.load(fromByteOffset: 8, as: Int32.self))
        return UnsafeBufferPointer(start: (base + Self.headerBytes + Self.maximumBytes).assumingMemoryBound(to: UInt8.self), count: count)
    }

    mutating func store(owner: Int, _ bytes: UnsafeBufferPointer<UInt8>, output: UnsafeBufferPointer<UInt8>) {
        guard !isDisabled(owner), bytes.count <= Self.maximumBytes, output.count <= Self.maximumBytes else { return }
        if slots == nil {
            slots = .allocate(byteCount: Self.slotCount * Self.slotBytes, alignment: 16)
            for slot in 0..<Self.slotCount { (slots! + slot * Self.slotBytes).storeBytes(of: 0, as: Int32.self) }
        }
        let base = slots! + Self.slot(owner, bytes) * Self.slotBytes
        base.storeBytes(of: Int32(truncatingIfNeeded: owner + 1), as: Int32.self)
        base.storeBytes(of: Int32(bytes.count), toByteOffset: 4, as: Int32.self)
        base.storeBytes(of: Int32(output.count), toByteOffset: 8, as: Int32.self)
        if let key = bytes.baseAddress { (base + Self.headerBytes).copyMemory(from: key, byteCount: bytes.count) }
        if let value = output.baseAddress { (base + Self.headerBytes + Self.maximumBytes).copyMemory(from: value, byteCount: output.count) }
    }
}
