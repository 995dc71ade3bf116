import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitArchiveIO
import FixtureKitModels

/// The text fast path: an acceleration of ``AnonymizationSession/anonymize(_:_:)``
/// for its common case, a text value under a keyed rule (pseudonym, fake) or a
/// mask by a one-byte character of ASCII text, without the general path's
/// enums, closures and reference counting; keyed outputs may come from a
/// ``KeyedPrefetch``. It gives the same outputs, counts and spool records as
/// ``AnonymizationSession/transform(_:_:group:attempt:)`` (the reference), which
/// `AnonymizationAccelerationTests` checks on random stores.
extension AnonymizationSession {
    /// The objects the fast path calls, held unretained so that calling them
    /// costs no reference counting: the session keeps them alive as long as its
    /// functions are registered.
    struct FastPathObjects {
        let hmac: Unmanaged<HMACSHA256>
        let originals: Unmanaged<SpoolFile>
        let written: Unmanaged<SpoolFile>
        let prefetch: Unmanaged<KeyedPrefetch>?

        init(hmac: HMACSHA256, spool: LeakSpool, prefetch: KeyedPrefetch?) {
            self.hmac = .passUnretained(hmac)
            originals = .passUnretained(spool.originals)
            written = .passUnretained(spool.written)
            self.prefetch = prefetch.map { .passUnretained($0) }
        }
    }

    /// Rewrites a text value of rule `index`. The objects it calls come from
    /// ``Scratch/objects``, and the rule is read in place, not copied.
    /// - Returns: `false` when the general path must handle the value.
    static func anonymizeText(_ value: SQLiteValueRef, rule index: Int, result: DatabaseFunction.Result, _ scratch: UnsafeMutablePointer<Scratch>) -> Bool {
        guard scratch.pointee.spoolsBytesAsTheyAre else { return false }
        let objects = scratch.pointee.objects
        let rule = scratch.pointee.textRules.baseAddress! + index
        let input = value.textBytes
        switch rule.pointee.strategy {
        case .mask(let keepFirst, let keepLast, _):
            guard let character = rule.pointee.maskByte, input.isASCII else { return false }
            // A copy of the input, masked in place: as long as the input (the
            // values of a column are often all as long: the array keeps its count).
            if scratch.pointee.output.count != input.count {
                scratch.pointee.output.removeAll(keepingCapacity: true)
                scratch.pointee.output.append(contentsOf: input)
            }
            scratch.pointee.output.withUnsafeMutableBufferPointer { output in
                guard let base = output.baseAddress, let source = input.baseAddress else { return }
                base.update(from: source, count: input.count)
                ValueTransforms.maskInPlace(keepFirst: keepFirst, keepLast: keepLast, fill: character, output)
            }
        case .pseudonym, .fake:
            scratch.pointee.output.removeAll(keepingCapacity: true)
            // Every text value counts in the sequence the prefetch follows.
            let sequence = scratch.pointee.sequences[index]
            scratch.pointee.sequences[index] = sequence + 1
            objects.prefetch?._withUnsafeGuaranteedRef { $0.skip(rule: index, sequence: sequence) }
            guard !input.isEmpty else { return false }
            if let slot = scratch.pointee.cache.lookup(rule.pointee.outputs, input) {
                let cached = scratch.pointee.cache.output(slot)
                if !input.hasSameBytes(as: cached) { scratch.pointee.changed[index] += 1 }
                if rule.pointee.profileBefore >= 0, let tallies = scratch.pointee.tallies {
                    tallies[rule.pointee.profileBefore].addText(input)
                    tallies[rule.pointee.profileAfter].addText(cached)
                }
                result.setText(cached)
                return true
            }
            let prefetched = objects.prefetch?._withUnsafeGuaranteedRef { $0.take(rule: index, sequence: sequence, input: input, into: &scratch.pointee.output) } ?? false
            if !prefetched {
                let prefix = rule.pointee.prefix
                let ok = objects.hmac._withUnsafeGuaranteedRef { hmac in
                    ValueTransforms.keyedText(rule.pointee.strategy, input: input, attempt: 0, fold: &scratch.pointee.fold, into: &scratch.pointee.output) { value, attempt in
                        stream(scratch, hmac, prefix: prefix, attempt: attempt, value)
                    }
                }
                guard ok else { return false }
            }
            // Another value holds this output: the general path takes the next attempt.
            if rule.pointee.claims, !scratch.pointee.output.withUnsafeBytes({ claim(scratch, rule.pointee.outputs, input: UnsafeRawBufferPointer(input), output: $0) }) {
                return false
            }
            scratch.pointee.output.withUnsafeMutableBufferPointer { scratch.pointee.cache.store(rule.pointee.outputs, input, output: UnsafeBufferPointer($0)) }
        default:
            return false
        }
        // (The mutable form only borrows the array: the other one would retain it.)
        let isChanged = scratch.pointee.output.withUnsafeMutableBufferPointer { output in
            let output = UnsafeBufferPointer(output)
            result.setText(output)
            if rule.pointee.profileBefore >= 0, let tallies = scratch.pointee.tallies {
                tallies[rule.pointee.profileBefore].addText(input)
                tallies[rule.pointee.profileAfter].addText(output)
            }
            guard !input.hasSameBytes(as: output) else { return false }
            if output.count >= PatternIndex.minimumBytes {
                objects.written._withUnsafeGuaranteedRef { $0.appendValue(nil, UnsafeRawBufferPointer(output)) }
            }
            return true
        }
        guard isChanged else { return true }
        scratch.pointee.changed[index] += 1
        if input.count >= PatternIndex.minimumBytes {
            objects.originals._withUnsafeGuaranteedRef { $0.appendValue(UInt32(index), UnsafeRawBufferPointer(input)) }
        }
        return true
    }
}
