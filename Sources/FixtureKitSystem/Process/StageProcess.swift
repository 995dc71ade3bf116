#if canImport(Glibc)
import Glibc
#endif
import CSystem

/// A stage program and every process it starts, run so that none of them
/// outlives the stage.
///
/// The program runs under a reaper (`fixturekit_spawn_reaped` in the C shim): a
/// process of fixturekit's own, made a child subreaper with
/// `prctl(PR_SET_CHILD_SUBREAPER)`, so that every process the program starts
/// stays below it, a daemon that double-forks and calls `setsid` included. The
/// program has a process group of its own. Its end is its main process' exit;
/// whatever is still running below the reaper then is terminated (`SIGTERM`, and
/// `SIGKILL` after ``grace``) before the run returns, and counted. A stage that
/// outlasts its timeout, or that runs when its run is cancelled (``Cancellation``:
/// SIGINT or SIGTERM through ``Interruption``), is ended the same way, the signal
/// received forwarded (SIGTERM when the caller cancelled).
package struct StageProcess {
    /// How the program ended.
    package enum End: Equatable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
        /// It outlasted its timeout, in seconds, and was ended.
        case timedOut(Double)
        /// The run was cancelled while it ran (fixturekit received a signal, and
        /// forwarded it; or the caller cancelled it, and it got SIGTERM).
        case interrupted(Cancellation.Reason)
        /// It could not be started: `execve` (or `fork`) failed with this errno.
        case cannotStart(Int32)
    }

    package struct Outcome: Equatable, Sendable {
        package var end: End
        /// Processes still running below the program once its main process had
        /// ended on its own, which had to be terminated.
        package var leftRunning: Int
        /// Whether it was killed because `killWhen` said so.
        package var killed = false

        package init(end: End, leftRunning: Int) {
            self.end = end
            self.leftRunning = leftRunning
        }
    }

    /// How long processes that got `SIGTERM` have before `SIGKILL`.
    static let grace: Duration = .seconds(2)
    /// How often a running stage is looked at: its end, the clock, a signal received.
    static let pollInterval: Int32 = 50
    /// How often `killWhen` is asked, in milliseconds.
    static let watchInterval: Int32 = 2

    /// Runs `argv` (`argv[0]` the program's name as given) as `executable` in
    /// `directory`, with `environment`, stdin from /dev/null and stdout and
    /// stderr into `output`; waits for it and ends everything it left.
    /// - Parameter timeout: ended after this long; `nil` for never.
    /// - Parameter cancellation: ended once it is cancelled.
    /// - Parameter killWhen: asked every ``watchInterval`` milliseconds while it
    ///   runs; once it says yes, everything is killed with SIGKILL at once, as a
    ///   crash or the system would (``Outcome/killed``).
    /// - Throws: ``FileSystemError`` when the pipes or /dev/null cannot be opened.
    package static func run(
        executable: String, argv: [String], environment: [String: String], directory: String, output: Int32, timeout: Duration?, cancellation: Cancellation? = nil,
        killWhen: (() -> Bool)? = nil
    ) throws(FileSystemError) -> Outcome {
        let input = try POSIX.open("/dev/null", O_RDONLY)
        defer { close(input) }
        let report = try POSIX.pipe(), execError = try POSIX.pipe()
        let strings = CStrings(argv: argv, environment: environment)
        defer { strings.free() }
        let clock = ContinuousClock()
        let started = clock.now
        let reaper = executable.withCString { path in
            directory.withCString { folder in
                fixturekit_spawn_reaped(path, strings.argv, strings.environment, folder, input, output, report.write, execError.write)
            }
        }
        let spawnErrno = errno
        close(report.write)
        close(execError.write)
        defer {
            close(report.read)
            close(execError.read)
        }
        guard reaper > 0 else { return Outcome(end: .cannotStart(spawnErrno), leftRunning: 0) }
        defer { waitFor(reaper) }

        // The program's pid, then what execve said: nothing when it succeeded.
        guard let program = readInt(report.read) else { return Outcome(end: .cannotStart(EIO), leftRunning: 0) }
        // Minus errno when the reaper could not set itself up or fork.
        guard program > 0 else { return Outcome(end: .cannotStart(-program), leftRunning: 0) }
        if let failure = readInt(execError.read) {
            // The reaper saw the program exit and has nothing else to wait for.
            return Outcome(end: .cannotStart(failure), leftRunning: 0)
        }

        let deadline = timeout.map { started + $0 }
        var end: End?
        var killed = false
        while end == nil {
            if let killWhen, killWhen() {
                (end, killed) = (.signaled(SIGKILL), true)
                break
            }
            if let reason = cancellation?.reason {
                end = .interrupted(reason)
                break
            }
            if let deadline, clock.now >= deadline {
                end = .timedOut(Double((timeout ?? .zero).components.seconds) + Double((timeout ?? .zero).components.attoseconds) / 1e18)
                break
            }
            var ready = pollfd(fd: report.read, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, killWhen == nil ? pollInterval : watchInterval) > 0 else { continue }
            guard let status = readInt(report.read) else {
                // The reaper itself was killed: what was below it is init's now.
                end = .signaled(SIGKILL)
                break
            }
            end = decode(status)
        }
        let ending = end ?? .signaled(SIGKILL)
        let signal: Int32
        switch ending {
        case .interrupted(.signal(let received)): signal = received
        case .signaled(SIGKILL) where killed: signal = SIGKILL
        default: signal = SIGTERM
        }
        // Counted when the program ended on its own; when it was ended, everything was.
        let running: Int
        switch ending {
        case .exited, .signaled, .cannotStart: running = ProcessTree.descendants(of: reaper).count
        case .timedOut, .interrupted: running = 0
        }
        terminate(below: reaper, group: program, first: signal)
        var outcome = Outcome(end: ending, leftRunning: killed ? 0 : running)
        outcome.killed = killed
        return outcome
    }

    /// Sends `signal` to the program's group and to every process below the
    /// reaper, then `SIGKILL` to those still there after ``grace``, until none is.
    static func terminate(below reaper: pid_t, group: pid_t, first signal: Int32) {
        var left = ProcessTree.descendants(of: reaper)
        guard !left.isEmpty else { return }
        let clock = ContinuousClock()
        kill(-group, signal)
        for pid in left { kill(pid, signal) }
        let graceEnds = clock.now + grace
        while !left.isEmpty, clock.now < graceEnds {
            usleep(20_000)
            left = ProcessTree.descendants(of: reaper)
        }
        // A process may fork while it is being killed: its child is found next time.
        while !left.isEmpty {
            kill(-group, SIGKILL)
            for pid in left { kill(pid, SIGKILL) }
            usleep(10_000)
            left = ProcessTree.descendants(of: reaper)
        }
    }

    /// A wait status as an end.
    private static func decode(_ status: Int32) -> End {
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// Waits for the reaper, which exits once nothing is left below it.
    private static func waitFor(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Reads one `int` from a pipe: `nil` at its end.
    private static func readInt(_ fd: Int32) -> Int32? {
        var value: Int32 = 0
        var got = 0
        while got < MemoryLayout<Int32>.size {
            let count = withUnsafeMutableBytes(of: &value) { buffer in
                POSIX.retrying { read(fd, buffer.baseAddress! + got, buffer.count - got) }
            }
            guard count > 0 else { return nil }
            got += count
        }
        return value
    }

    /// The C strings the child needs, made before the fork: after it, the child
    /// cannot allocate.
    private struct CStrings {
        let argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        let environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        private let counts: (Int, Int)

        init(argv words: [String], environment variables: [String: String]) {
            let entries = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            argv = Self.array(words)
            environment = Self.array(entries)
            counts = (words.count, entries.count)
        }

        private static func array(_ strings: [String]) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
            let array = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: strings.count + 1)
            for (index, string) in strings.enumerated() { array[index] = strdup(string) }
            array[strings.count] = nil
            return array
        }

        func free() {
            for index in 0..<counts.0 { Glibc.free(argv[index]) }
            for index in 0..<counts.1 { Glibc.free(environment[index]) }
            argv.deallocate()
            environment.deallocate()
        }
    }
}

/// The processes of the system as `/proc` lists them.
enum ProcessTree {
    /// Every live process below `root` (its children, theirs, and so on);
    /// zombies, which have ended and wait to be reaped, are left out.
    static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        var zombies: Set<pid_t> = []
        for name in (try? POSIX.listDirectory("/proc")) ?? [] {
            guard let pid = pid_t(String(pathBytes: name)), let (state, parent) = stat(of: pid) else { continue }
            children[parent, default: []].append(pid)
            if state == UInt8(ascii: "Z") || state == UInt8(ascii: "X") { zombies.insert(pid) }
        }
        var found: [pid_t] = []
        var pending = children[root] ?? []
        while let pid = pending.popLast() {
            if !zombies.contains(pid) { found.append(pid) }
            pending += children[pid] ?? []
        }
        return found
    }

    /// A process' state letter and parent, from `/proc/PID/stat`: `PID (NAME) S PPID ...`,
    /// where NAME may hold spaces and parentheses (the last `)` ends it).
    private static func stat(of pid: pid_t) -> (UInt8, pid_t)? {
        guard let bytes = try? POSIX.readFile("/proc/\(pid)/stat", limit: 4096),
              let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count >= 2, let state = fields[0].first, let parent = pid_t(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return (state, parent)
    }
}
