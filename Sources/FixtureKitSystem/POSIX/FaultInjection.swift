import Synchronization

/// Where the tests change files under a run's feet: a file deleted, replaced or
/// grown between the moment a command decides to read it and the moment it
/// does. Outside the tests nothing is registered, and reaching a step finds an
/// empty table.
package enum FaultInjection {
    package enum Step: Hashable, Sendable {
        /// A file is about to be opened.
        case willOpen
        /// A file is open and checked, and nothing of it has been read yet.
        case opened
        /// A file open for reading is about to be read (each read of a ``SequentialReader``).
        case read
        /// A file or folder is about to be removed.
        case willRemove
        /// A command is about to start one of its phases (`upgrade`'s `backup`,
        /// `stages`, `checks`, `values`, `restore`, `finish`), for the path it works on.
        case phase(String)
    }

    private struct Key: Hashable {
        var step: Step
        var path: String
    }

    private static let actions = Mutex<[Key: @Sendable () -> Void]>([:])
    private static let failures = Mutex<[Key: Int32]>([:])
    private static let spaces = Mutex<[String: UInt64]>([:])

    /// The free space a test made a check of room for `path` see, forgotten once given.
    package static func injectedSpace(_ path: String) -> UInt64? {
        spaces.withLock { $0.removeValue(forKey: path) }
    }

    /// Makes the next check of room for `path` (the `size` probe's, for a
    /// fixture folder) see `bytes` free, whatever the file system has.
    package static func report(space bytes: UInt64, for path: String) {
        spaces.withLock { $0[path] = bytes }
    }

    /// The errno a test registered for `step` of `path`, forgotten once given.
    static func injectedFailure(_ step: Step, _ path: String) -> Int32? {
        failures.withLock { $0.removeValue(forKey: Key(step: step, path: path)) }
    }

    /// Makes the next time a run reaches `step` of `path` fail with `errno`.
    package static func fail(_ step: Step, of path: String, errno: Int32) {
        failures.withLock { $0[Key(step: step, path: path)] = errno }
    }

    /// Runs, and forgets, what a test registered for `step` of `path`.
    package static func reached(_ step: Step, _ path: String) {
        let action = actions.withLock { $0.removeValue(forKey: Key(step: step, path: path)) }
        action?()
    }

    /// Registers `action` for the next time a run reaches `step` of `path`
    /// (the path exactly as the library spells it).
    package static func at(_ step: Step, of path: String, _ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0[Key(step: step, path: path)] = action }
    }
}
