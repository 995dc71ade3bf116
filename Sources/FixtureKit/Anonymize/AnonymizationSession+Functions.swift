import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// The SQL functions' bodies, through ``DatabaseFunction``.
extension AnonymizationSession {
    /// `fixturekit_anonymize(rule, value [, group])`: the value rewritten by the
    /// rule, by the general path. (The registered function gives a text value to
    /// the text fast path first, ``anonymizeText(_:rule:result:_:)``, when the
    /// session's acceleration allows it: ``register(on:)``.)
    func anonymize(_ arguments: DatabaseFunction.Arguments, _ result: DatabaseFunction.Result) {
        guard arguments.count >= 2 else { return fail(result, nil, "fixturekit_anonymize: wrong arguments") }
        let index = Int(arguments[0].int64)
        guard rules.indices.contains(index) else { return fail(result, nil, "fixturekit_anonymize: no rule \(index)") }
        let value = arguments[1]
        let rule = rules[index]
        guard let input = Input(value) else {
            tally(rule, nil, .null)
            return result.setNull()
        }
        let group = arguments.count >= 3 ? Input(arguments[2]) : nil
        // Keyed strategies on text: the same input gives the same output, so a
        // repeated value is taken from the cache, and was recorded the first time.
        let scratch = scratch
        var cacheable = false
        if case .text(let bytes) = input, rule.isKeyedText {
            cacheable = true
            if let slot = scratch.pointee.cache.lookup(rule.outputs, bytes) {
                let cached = scratch.pointee.cache.output(slot)
                if !bytes.hasSameBytes(as: cached) { scratch.pointee.changed[index] += 1 }
                if let slots = rule.profileSlots, let tallies = scratch.pointee.tallies {
                    tallies[slots.before].addText(bytes)
                    tallies[slots.after].addText(cached)
                }
                return result.setText(cached)
            }
        }
        switch claimedTransform(rule, input, group: group) {
        case .failure(let failure):
            fail(result, rule, failure.description)
        case .success(let output):
            if cacheable, output == .text, case .text(let bytes) = input {
                scratch.pointee.output.withUnsafeBufferPointer { scratch.pointee.cache.store(rule.outputs, bytes, output: $0) }
            }
            finish(result, rule, input, output)
        }
    }

    /// Sets the function's result (without one, only counts), counts a
    /// change and spools what was replaced.
    func finish(_ result: DatabaseFunction.Result?, _ rule: BoundRule, _ input: Input, _ output: Output) {
        let scratch = scratch
        tally(rule, input, output)
        var isChanged = true
        switch output {
        case .unchanged:
            isChanged = false
            if let result { Self.set(result, input) }
        case .null:
            result?.setNull()
        case .integer(let value):
            if case .integer(let old) = input, old == value { isChanged = false }
            result?.setInteger(value)
        case .real(let value):
            if case .real(let old) = input, old == value { isChanged = false }
            result?.setReal(value)
        case .text, .blob:
            scratch.pointee.output.withUnsafeBufferPointer { bytes in
                switch input {
                case .text(let old) where output == .text: isChanged = !old.hasSameBytes(as: bytes)
                case .blob(let old) where output == .blob: isChanged = !old.hasSameBytes(as: bytes)
                default: break
                }
                if let result { Self.set(result, output == .text ? .text(bytes) : .blob(bytes)) }
                if isChanged { spool.addWritten(UnsafeRawBufferPointer(bytes), isText: output == .text) }
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

    /// Feeds the profile's tallies of a streamed rule: the value, and what the rule wrote.
    @inline(__always)
    func tally(_ rule: BoundRule, _ input: Input?, _ output: Output) {
        guard let slots = rule.profileSlots, let tallies = scratch.pointee.tallies else { return }
        Self.add(input, to: tallies + slots.before)
        let after = tallies + slots.after
        switch output {
        case .text: scratch.pointee.output.withUnsafeBufferPointer { after.pointee.addText($0) }
        case .blob: scratch.pointee.output.withUnsafeBufferPointer { after.pointee.addBlob($0) }
        case .integer(let value): after.pointee.addInteger(value)
        case .real(let value): after.pointee.addReal(value)
        case .null: after.pointee.addNull()
        case .unchanged: Self.add(input, to: after)
        }
    }

    /// Adds a value (`nil`: NULL) to a tally.
    static func add(_ input: Input?, to tally: UnsafeMutablePointer<ProfileTally>) {
        switch input {
        case nil: tally.pointee.addNull()
        case .text(let bytes)?: tally.pointee.addText(bytes)
        case .blob(let bytes)?: tally.pointee.addBlob(bytes)
        case .integer(let value)?: tally.pointee.addInteger(value)
        case .real(let value)?: tally.pointee.addReal(value)
        }
    }

    static func set(_ result: DatabaseFunction.Result, _ input: Input) {
        switch input {
        case .text(let bytes): result.setText(bytes)
        case .blob(let bytes): result.setBlob(UnsafeRawBufferPointer(bytes))
        case .integer(let value): result.setInteger(value)
        case .real(let value): result.setReal(value)
        }
    }

    /// `fixturekit_mapped(rule, value, pending)`: the value rewritten with the
    /// attempt its rule's map gives its fold; with `pending` 1, a placeholder
    /// that names the output instead (kept in `temp.fixturekit_pending`).
    func mapped(_ arguments: DatabaseFunction.Arguments, _ result: DatabaseFunction.Result) {
        guard arguments.count == 3 else { return fail(result, nil, "fixturekit_mapped: wrong arguments") }
        let index = Int(arguments[0].int64)
        guard rules.indices.contains(index), let table = rules[index].mapTable else { return fail(result, nil, "fixturekit_mapped: no rule \(index)") }
        let rule = rules[index]
        guard let input = Input(arguments[1]) else { return result.setNull() }
        let pending = arguments[2].int64 == 1
        guard let statement = prepared(&lookups[index], "SELECT attempt FROM temp.\(quotedIdentifier(table)) WHERE original = ?1", result, rule) else { return }
        statement.reset()
        defer { statement.reset() }
        let fold = Self.fold(input)
        guard (try? statement.bind([fold])) != nil, (try? statement.step()) == true, case .integer(let attempt) = statement.column(0) else {
            // Values the map leaves out (empty ones) stay as they are.
            return Self.set(result, input)
        }
        let output: Output
        switch transform(rule, input, group: nil, attempt: UInt32(clamping: attempt)) {
        case .failure(let failure): return fail(result, rule, failure.description)
        case .success(let value): output = value
        }
        guard pending else { return finish(result, rule, input, output) }
        // Count and spool as the final value, then write the placeholder.
        let final: SQLiteValue = switch output {
        case .text: .text(String(decoding: scratch.pointee.output, as: UTF8.self))
        case .blob: .blob(scratch.pointee.output)
        case .integer(let number): .integer(number)
        case .real(let number): .real(number)
        case .null: .null
        case .unchanged: Self.value(input)
        }
        finish(nil, rule, input, output)
        guard let insert = prepared(&pendingInsert, "INSERT INTO temp.fixturekit_pending (value) VALUES (?1)", result, rule) else { return }
        insert.reset()
        defer { insert.reset() }
        guard (try? insert.bind([final])) != nil, (try? insert.step()) != nil, let database else {
            return fail(result, rule, "cannot keep its output until the column is rewritten")
        }
        let placeholder = Array((Self.pendingPrefix + String(database.lastInsertedRowID)).utf8)
        placeholder.withUnsafeBufferPointer { result.setText($0) }
    }

    /// `fixturekit_unpend(rule, placeholder)`: the output a placeholder names.
    func unpend(_ arguments: DatabaseFunction.Arguments, _ result: DatabaseFunction.Result) {
        guard arguments.count == 2 else { return fail(result, nil, "fixturekit_unpend: wrong arguments") }
        let index = Int(arguments[0].int64)
        guard rules.indices.contains(index), case .text(let bytes)? = Input(arguments[1]) else { return fail(result, nil, "fixturekit_unpend: wrong arguments") }
        let prefix = Array(Self.pendingPrefix.utf8)
        guard bytes.starts(with: prefix), let row = Int64(String(decoding: bytes[prefix.count...], as: UTF8.self)) else {
            return result.setText(bytes)
        }
        guard let statement = prepared(&unpendLookups[index], "SELECT value FROM temp.fixturekit_pending WHERE id = ?1", result, rules[index]) else { return }
        statement.reset()
        defer { statement.reset() }
        guard (try? statement.bind(row, at: 1)) != nil, (try? statement.step()) == true else {
            return fail(result, rules[index], "a placeholder names no output")
        }
        result.setValue(statement.columnValue(0))
    }

    /// `fixturekit_fold(value)`: a text's fold (spaces at either end dropped,
    /// ASCII letters in lower case: what `NOCASE` and `trim()` compare); any
    /// other value as it is. The key of a pseudonym map.
    func fold(_ arguments: DatabaseFunction.Arguments, _ result: DatabaseFunction.Result) {
        guard arguments.count == 1 else { return fail(result, nil, "fixturekit_fold: wrong arguments") }
        guard let input = Input(arguments[0]) else { return result.setNull() }
        result.set(Self.fold(input))
    }

    /// The fold of a value (see ``fold(_:_:)``).
    static func fold(_ input: Input) -> SQLiteValue {
        guard case .text(let bytes) = input else { return value(input) }
        var folded: [UInt8] = []
        _ = TextShape(bytes, fold: &folded)
        return .text(String(decoding: folded, as: UTF8.self))
    }

    /// A value as an owned ``SQLiteValue``.
    static func value(_ input: Input) -> SQLiteValue {
        switch input {
        case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): .blob(Array(bytes))
        case .integer(let number): .integer(number)
        case .real(let number): .real(number)
        }
    }

    private func prepared(_ slot: inout Statement?, _ sql: String, _ result: DatabaseFunction.Result, _ rule: BoundRule) -> Statement? {
        if let slot { return slot }
        guard let database, let statement = try? database.prepare(sql) else {
            fail(result, rule, "cannot read its pseudonym map")
            return nil
        }
        slot = statement
        return statement
    }
}
