import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

extension AnonymizationSession {
    // MARK: - Values

    /// A value as the transforms see it.
    enum Input {
        case text(UnsafeBufferPointer<UInt8>)
        case blob(UnsafeBufferPointer<UInt8>)
        case integer(Int64)
        case real(Double)

        /// 0 text, 1 blob, 2 integer, 3 real: the first byte of a group's key.
        var storageClass: Int {
            switch self {
            case .text: 0
            case .blob: 1
            case .integer: 2
            case .real: 3
            }
        }

        /// Reads an SQLite value, or `nil` for NULL.
        /// The buffers point into SQLite's memory, valid until the value changes.
        init?(_ value: SQLiteValueRef) {
            switch value.storageClass {
            case .integer: self = .integer(value.int64)
            case .real: self = .real(value.double)
            case .text: self = .text(value.textBytes)
            case .blob: self = .blob(value.blobBytes)
            case .null: return nil
            }
        }
    }

    /// What a transform gives back; text and blob bytes are in `output`.
    enum Output: Equatable {
        case text, blob, integer(Int64), real(Double), null, unchanged
    }

    /// The keyed stream of a rule's derivation prefix, `attempt` and `value`:
    /// the message is assembled in one buffer and hashed in one update.
    private func stream(_ prefix: [UInt8], attempt: UInt32, _ value: UnsafeRawBufferPointer) -> KeyedStream? {
        prefix.withUnsafeBytes { Self.stream(scratch, key.hmac, prefix: $0, attempt: attempt, value) }
    }

    @inline(__always)
    static func stream(_ scratch: UnsafeMutablePointer<Scratch>, _ hmac: HMACSHA256, prefix: UnsafeRawBufferPointer, attempt: UInt32, _ value: UnsafeRawBufferPointer) -> KeyedStream? {
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
        guard hmac.authenticate(UnsafeRawBufferPointer(start: message, count: length), into: digest) else { return nil }
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
        switch rule.strategy {
        case .keep:
            return .success(.unchanged)
        case .null:
            return .success(.null)
        case .value(let constant):
            // NULL stays NULL (the functions are not called for it), '' stays ''.
            switch input {
            case .text(let bytes) where bytes.isEmpty: return .success(.unchanged)
            case .blob(let bytes) where bytes.isEmpty: return .success(.unchanged)
            default: break
            }
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
        case .mask(let keepFirst, let keepLast, _):
            var isBlob = false
            if case .blob = input { isBlob = true }
            withText(input) { bytes in
                guard !isBlob else {
                    return ValueTransforms.mask(keepFirst: keepFirst, keepLast: keepLast, character: rule.maskBytes, input: bytes, isBlob: true, into: &scratch.pointee.output)
                }
                ValueTransforms.keepingSpaces(bytes, into: &scratch.pointee.output) { core, output in
                    ValueTransforms.mask(keepFirst: keepFirst, keepLast: keepLast, character: rule.maskBytes, input: core, isBlob: false, into: &output)
                }
            }
            // A number masked by a digit is a number still.
            if case .integer = input, let number = Int64(String(decoding: scratch.pointee.output, as: UTF8.self)) { return .success(.integer(number)) }
            return .success(isBlob ? .blob : .text)
        case .pseudonym, .fake:
            return keyed(rule, input, attempt: attempt)
        case .shiftDate(_, let maxDays, let unit, _):
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
            // ±Inf stays as it is: no amount moves it, and Inf - Inf is NaN, which SQLite stores as NULL.
            guard number.isFinite else { return .success(.unchanged) }
            var bits = number.bitPattern.littleEndian
            guard var stream = withUnsafeBytes(of: &bits, { stream(rule.derivationPrefix, attempt: 0, $0) }) else { return .failure(.crypto) }
            let spread = amount ?? abs(number) * ratio
            let delta = (stream.nextUnit() * 2 - 1) * spread
            // A finite value stays finite: a move past the largest double goes the other way.
            var noisy = number + delta
            if !noisy.isFinite { noisy = number - delta }
            if !noisy.isFinite { noisy = number }
            if case .integer = input {
                let rounded = noisy.rounded()
                guard let integer = Int64(exactly: max(min(rounded, 9.2e18), -9.2e18)) else { return .success(.unchanged) }
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
        case tooFewOutputs

        var description: String {
            switch self {
            case .notADate(let what): "shift-date found \(what)"
            case .notANumber(let what): "noise needs numbers, found \(what)"
            case .crypto: "libcrypto failed to compute an HMAC"
            case .tooFewOutputs: "no distinct output left after \(AnonymizationSession.maximumAttempts) tries: the format has too few values for this column (hint: use a wider format: hex, uuid, email)"
            }
        }
    }

    /// A keyed strategy (pseudonym, fake): blobs become keyed bytes of the same
    /// length, empty values stay empty, text and numbers go through
    /// ``ValueTransforms/keyedText(_:input:attempt:fold:into:stream:)``; a
    /// number whose output is a number again (digits, the digits of a fake
    /// text) stays a number.
    private func keyed(_ rule: BoundRule, _ input: Input, attempt: UInt32) -> Result<Output, TransformFailure> {
        let scratch = scratch
        return withText(input) { bytes in
            guard !bytes.isEmpty else { return .success(.unchanged) }
            if case .blob = input {
                guard var stream = stream(rule.derivationPrefix, attempt: attempt, UnsafeRawBufferPointer(bytes)) else { return .failure(.crypto) }
                for _ in 0..<bytes.count { scratch.pointee.output.append(UInt8(truncatingIfNeeded: stream.next())) }
                return .success(.blob)
            }
            let ok = ValueTransforms.keyedText(rule.strategy, input: bytes, attempt: attempt, fold: &scratch.pointee.fold, into: &scratch.pointee.output) { value, attempt in
                stream(rule.derivationPrefix, attempt: attempt, value)
            }
            guard ok else { return .failure(.crypto) }
            switch input {
            case .integer:
                if let number = Int64(String(decoding: scratch.pointee.output, as: UTF8.self)) { return .success(.integer(number)) }
            case .real:
                if let number = Double(String(decoding: scratch.pointee.output, as: UTF8.self)), number.isFinite { return .success(.real(number)) }
            default:
                break
            }
            return .success(.text)
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
        let owner = rule.outputs
        if let slot = groupBytes.withUnsafeBufferPointer({ scratch.pointee.cache.lookup(owner, $0) }) {
            return scratch.pointee.cache.output(slot).withUnsafeBytes { $0.loadUnaligned(as: Int.self) }
        }
        guard var stream = groupBytes.withUnsafeBytes({ stream(rule.derivationPrefix, attempt: 0, $0) }) else { return nil }
        let days = ValueTransforms.dayOffset(&stream, maxDays: maxDays)
        groupBytes.withUnsafeBufferPointer { key in
            withUnsafeBytes(of: days) { scratch.pointee.cache.store(owner, key, output: $0.assumingMemoryBound(to: UInt8.self)) }
        }
        return days
    }
}
