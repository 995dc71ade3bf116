import FixtureKitSystem
import FixtureKitSQLite

/// Claims keep the outputs of a narrow keyed format distinct: two values that
/// differ (under `NOCASE` and `trim()` too) never get one output, so a rule
/// never collapses two values into one, nor makes unequal values equal under
/// SQLite's own collations.
///
/// A format with few outputs (digits, names, fakes from lists, short hex)
/// meets collisions in any large column. Per domain (the rules whose outputs
/// are equal for equal inputs: one ``OutputCache/Owner``), each output's fold
/// is claimed by the fold of the value that got it first; a value whose output
/// another value claimed takes the next keyed attempt, deterministically in the
/// order SQLite visits the rows. Values of one fold share their attempt, so
/// they stay equal under `NOCASE`. Wide formats (uuid, e-mail, hex of 16
/// digits or more) collide too rarely to pay for it; the data profile checks them.
extension AnonymizationSession {
    /// Whether `output` may be the output of `input` in the domain of `owner`,
    /// which then claims it.
    @inline(__always)
    static func claim(_ scratch: UnsafeMutablePointer<Scratch>, _ owner: OutputCache.Owner, input: UnsafeRawBufferPointer, output: UnsafeRawBufferPointer) -> Bool {
        let key = ValueHash.foldedHash(output, trimmed: true)
        let value = ValueHash.foldedHash(input, trimmed: true)
        if let holder = scratch.pointee.claims[owner]?[key] { return holder == value }
        scratch.pointee.claims[owner, default: [:]][key] = value
        return true
    }

    /// Keyed candidates a numbered format tries before it takes a number.
    static let candidatesBeforeNumber: UInt32 = 3

    /// ``transform(_:_:group:attempt:)`` of a rule whose outputs are claimed:
    /// attempts until an output no other value holds; for other rules, attempt 0.
    ///
    /// A format that writes the attempt after a name or word (see
    /// ``ValueTransforms/appendAttempt(_:to:)``) takes, after a few collisions,
    /// the domain's next number: one that no other value has, so a few keyed
    /// hashes per value however full the lists are. The number is kept per
    /// fold, for the value's next rows.
    func claimedTransform(_ rule: BoundRule, _ input: Input, group: Input?) -> Result<Output, TransformFailure> {
        guard rule.claimsOutputs else { return transform(rule, input, group: group) }
        let scratch = scratch
        let numbered = rule.numbersCollisions
        let fold = numbered ? Self.textBytes(of: input) { ValueHash.foldedHash($0, trimmed: true) } : 0
        var attempt: UInt32 = 0
        if numbered, let number = scratch.pointee.numbers[rule.outputs]?[fold] { attempt = number }
        for _ in 0..<Self.maximumAttempts {
            let result = transform(rule, input, group: group, attempt: attempt)
            guard case .success(let output) = result else { return result }
            let accepted: Bool
            switch output {
            case .text:
                accepted = scratch.pointee.output.withUnsafeBytes { output in
                    Self.textBytes(of: input) { Self.claim(scratch, rule.outputs, input: $0, output: output) }
                }
            case .integer(let number):
                var text = String(number)
                accepted = text.withUTF8 { output in Self.textBytes(of: input) { Self.claim(scratch, rule.outputs, input: $0, output: UnsafeRawBufferPointer(output)) } }
            case .real(let number):
                var text = String(number)
                accepted = text.withUTF8 { output in Self.textBytes(of: input) { Self.claim(scratch, rule.outputs, input: $0, output: UnsafeRawBufferPointer(output)) } }
            default:
                accepted = true
            }
            if accepted { return result }
            // A few keyed candidates first: lists not yet full give a plain name.
            if numbered && attempt >= Self.candidatesBeforeNumber {
                let next = scratch.pointee.nextNumber[rule.outputs] ?? ValueTransforms.nameAttemptsBeforeNumber
                scratch.pointee.nextNumber[rule.outputs] = next + 1
                scratch.pointee.numbers[rule.outputs, default: [:]][fold] = next
                attempt = next
                continue
            }
            attempt += 1
        }
        return .failure(.tooFewOutputs)
    }

    /// The bytes of a value as the claims see it: text and blobs as they are, a number as its text.
    static func textBytes<T>(of input: Input, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        switch input {
        case .text(let bytes), .blob(let bytes): return body(UnsafeRawBufferPointer(bytes))
        case .integer(let value):
            var text = String(value)
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case .real(let value):
            var text = String(value)
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }
}

extension BoundRule {
    /// Whether the format writes the attempt after its name or word once the
    /// lists are exhausted (a `name` pseudonym, a fake name or word).
    var numbersCollisions: Bool {
        switch strategy {
        case .pseudonym(let format, _, _): format == .name
        case .fake(let kind): kind != .text
        default: false
        }
    }

    /// Whether the rule's format has so few outputs that collisions must be
    /// resolved as they come (see AnonymizationSession+Claims.swift).
    var isNarrow: Bool {
        switch strategy {
        case .pseudonym(let format, _, let length): format == .digits || format == .name || (format == .hex && length < 16)
        case .fake: true
        default: false
        }
    }
}
