import FixtureKitSystem
import FixtureKitSQLite

/// The state of one anonymization: the key, the bound rules, what changed, and
/// the spool of replaced values. SQLite calls back into it from the
/// application-defined functions `fixturekit_anonymize`, `fixturekit_mapped`
/// and `fixturekit_unpend` (see ``register(on:)``).
///
/// Every value goes through ``transform(_:_:group:attempt:)``, the reference.
/// Two accelerations give the same outputs, counts and spool records for the
/// values they take, and can be turned off (``Acceleration/none``): the text
/// fast path (``anonymizeText(_:rule:result:_:)``) and the outputs a
/// ``KeyedPrefetch`` computed ahead.
///
/// Not `Sendable`: it lives on the thread of its one connection.
final class AnonymizationSession {
    /// The prefix of the placeholder a UNIQUE column holds between the two
    /// statements that rewrite it (SQLite checks UNIQUE row by row, so a new
    /// value may not equal an old one not yet rewritten).
    static let pendingPrefix = "\u{1}fixturekit:"
    /// Collisions tried before a domain is said to be too small for its values.
    static let maximumAttempts: UInt32 = 1000

    /// Which accelerations of the plain path are on.
    struct Acceleration: Equatable {
        /// Text values of keyed rules and ASCII masks skip the general path.
        var textFastPath: Bool
        /// Keyed outputs may come from a ``KeyedPrefetch`` (with the fast path only:
        /// the engine starts none without it).
        var prefetch: Bool

        static let all = Acceleration(textFastPath: true, prefetch: true)
        /// The plain path alone: the reference the accelerations are compared with.
        static let none = Acceleration(textFastPath: false, prefetch: false)
    }

    let key: AnonymizationKey
    let rules: [BoundRule]
    let spool: LeakSpool
    let acceleration: Acceleration
    /// Outputs computed ahead for the fast path; stopped by the engine once
    /// the rows are rewritten (its outputs stay readable until it is freed).
    let prefetch: KeyedPrefetch?
    /// The data profile, fed by the rules' calls and by `fixturekit_profile`.
    let profile: ProfilePlan?
    /// The first error raised inside a callback, with the column it concerns.
    var failure: String?

    /// What the callbacks write on every value. Reached through a pointer: a
    /// stored property of a class costs a dynamic exclusivity check on each
    /// access, and the callbacks run millions of times.
    struct Scratch {
        /// The bytes of the last text or blob output.
        var output: [UInt8] = []
        /// The fold of the last keyed text (see ``TextShape``).
        var fold: [UInt8] = []
        /// The message of the last keyed hash: derivation prefix, attempt, value.
        var message = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        let digest = UnsafeMutablePointer<UInt8>.allocate(capacity: HMACSHA256.byteCount)
        var cache = OutputCache()
        /// The data profile's tallies (see ``ProfilePlan``), when it is measured.
        var tallies: UnsafeMutablePointer<ProfileTally>?
        /// Per domain of a narrow format, the fold hash of each output and of the value that holds it.
        var claims: [OutputCache.Owner: [UInt64: UInt64]] = [:]
        /// Per such domain, the number each fold that collided was given, and the next one.
        var numbers: [OutputCache.Owner: [UInt64: UInt32]] = [:]
        var nextNumber: [OutputCache.Owner: UInt32] = [:]
        /// Rows changed, by rule index (a buffer: an array written through the
        /// pointer costs a uniqueness check on every call).
        let changed: UnsafeMutableBufferPointer<Int>
        /// What the text fast path needs of each rule.
        let textRules: UnsafeMutableBufferPointer<TextRule>
        /// The spool keeps every value as it is (no UTF-16 forms to add).
        let spoolsBytesAsTheyAre: Bool
        /// Per rule: the text values the fast path has seen, for ``prefetch``.
        let sequences: UnsafeMutableBufferPointer<Int>
        /// The objects the fast path calls, unretained (``FastPathObjects``).
        let objects: FastPathObjects

        func release() {
            message.deallocate()
            digest.deallocate()
            for rule in textRules { rule.prefix.deallocate() }
            textRules.deallocate()
            changed.deallocate()
            sequences.deallocate()
        }
    }

    /// What the text fast path needs of a rule, as plain values: the rule's
    /// strategy, and what is derived from it once.
    struct TextRule {
        let strategy: Strategy
        /// The mask character, when it is one byte.
        let maskByte: UInt8?
        let outputs: OutputCache.Owner
        /// Its outputs are claimed (``BoundRule/claimsOutputs``).
        let claims: Bool
        /// The profile's tallies of its values and outputs, or -1.
        let profileBefore: Int
        let profileAfter: Int
        /// The rule's derivation prefix, allocated for the session's lifetime.
        let prefix: UnsafeRawBufferPointer

        init(_ rule: BoundRule) {
            strategy = rule.strategy
            maskByte = rule.maskBytes.count == 1 ? rule.maskBytes[0] : nil
            outputs = rule.outputs
            claims = rule.claimsOutputs
            profileBefore = rule.profileSlots?.before ?? -1
            profileAfter = rule.profileSlots?.after ?? -1
            let prefix = UnsafeMutableRawBufferPointer.allocate(byteCount: rule.derivationPrefix.count, alignment: 1)
            prefix.copyBytes(from: rule.derivationPrefix)
            self.prefix = UnsafeRawBufferPointer(prefix)
        }
    }

    let scratch: UnsafeMutablePointer<Scratch>
    /// Rows changed, by rule index.
    var changed: [Int] { Array(scratch.pointee.changed) }
    /// The bytes of the last text or blob output.
    var outputBytes: [UInt8] { scratch.pointee.output }
    /// The statements ``mapped(_:_:)`` and ``unpend(_:_:)`` read the maps with, by rule index.
    var lookups: [Statement?]
    var unpendLookups: [Statement?]
    /// The statement ``mapped(_:_:)`` keeps a pending output with.
    var pendingInsert: Statement?
    /// The connection the functions are registered on.
    private(set) var database: Database?

    init(key: AnonymizationKey, rules: [BoundRule], spool: LeakSpool, acceleration: Acceleration = .all, prefetch: KeyedPrefetch? = nil, profile: ProfilePlan? = nil) {
        self.key = key
        self.profile = profile
        self.prefetch = acceleration.prefetch && acceleration.textFastPath ? prefetch : nil
        self.rules = rules
        self.spool = spool
        self.acceleration = acceleration
        scratch = .allocate(capacity: 1)
        let textRules = UnsafeMutableBufferPointer<TextRule>.allocate(capacity: rules.count)
        _ = textRules.initialize(from: rules.map(TextRule.init))
        scratch.initialize(to: Scratch(
            changed: Self.counters(rules.count), textRules: textRules, spoolsBytesAsTheyAre: !spool.utf16,
            sequences: Self.counters(rules.count),
            objects: FastPathObjects(hmac: key.hmac, spool: spool, prefetch: self.prefetch)))
        scratch.pointee.output.reserveCapacity(4096)
        scratch.pointee.tallies = profile?.tallies.baseAddress
        scratch.pointee.fold.reserveCapacity(4096)
        lookups = Array(repeating: nil, count: rules.count)
        unpendLookups = Array(repeating: nil, count: rules.count)
    }

    private static func counters(_ count: Int) -> UnsafeMutableBufferPointer<Int> {
        let counters = UnsafeMutableBufferPointer<Int>.allocate(capacity: count)
        counters.initialize(repeating: 0)
        return counters
    }

    deinit {
        finalizeStatements()
        scratch.pointee.cache.release()
        scratch.pointee.release()
        scratch.deinitialize(count: 1)
        scratch.deallocate()
    }

    /// Tells the prefetch that the statement rewriting `rules` is done.
    func finished(_ rules: [BoundRule]) {
        prefetch?.finished(rules)
    }

    /// Frees the output cache once no value is rewritten any more: its memory
    /// then serves the leak scan (a later callback would allocate it again).
    func releaseCache() {
        scratch.pointee.cache.release()
    }

    /// Finalizes the statements the callbacks prepared; before the connection closes.
    func finalizeStatements() {
        lookups = Array(repeating: nil, count: rules.count)
        unpendLookups = Array(repeating: nil, count: rules.count)
        pendingInsert = nil
        database = nil
    }

    // MARK: - Registration

    /// Registers the functions on `database`, which must not outlive the session.
    func register(on database: Database) throws(SQLiteError) {
        self.database = database
        // Not pure: each call counts and records what it replaced. The functions
        // hold the session unowned: the session outlives the connection's use.
        unowned(unsafe) let session = self
        // The fast path first, with nothing of the session's loaded: a strong
        // reference loaded on each of millions of calls costs a retain and a release.
        let (scratch, fastPath) = (self.scratch, acceleration.textFastPath)
        try database.add(function: DatabaseFunction("fixturekit_anonymize") { arguments, result in
            if fastPath, arguments.count == 2, case let value = arguments[1], value.storageClass == .text,
                case let index = Int(arguments[0].int64), index >= 0, index < scratch.pointee.textRules.count,
                Self.anonymizeText(value, rule: index, result: result, scratch) {
                return
            }
            session.anonymize(arguments, result)
        })
        try database.add(function: DatabaseFunction("fixturekit_mapped") { arguments, result in
            session.mapped(arguments, result)
        })
        try database.add(function: DatabaseFunction("fixturekit_unpend") { arguments, result in
            session.unpend(arguments, result)
        })
        try database.add(function: DatabaseFunction("fixturekit_fold", argumentCount: 1, pure: true) { arguments, result in
            session.fold(arguments, result)
        })
        if let profile {
            try database.add(function: DatabaseFunction("fixturekit_profile", argumentCount: 2) { arguments, result in
                profile.feed(arguments, result)
            })
        }
    }

    /// Records the first failure and makes the call fail with it.
    func fail(_ result: DatabaseFunction.Result?, _ rule: BoundRule?, _ why: String) {
        let message = rule.map { "\($0.name): \(why)" } ?? why
        if failure == nil { failure = message }
        result?.setError(message)
    }
}
