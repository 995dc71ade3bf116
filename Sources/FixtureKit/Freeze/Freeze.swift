import FixtureKitSystem
import FixtureKitModels

/// What `freeze` did.
public struct FreezeResult: Sendable, Codable {
    public internal(set) var fixture: String
    public internal(set) var manifest: Manifest
    public internal(set) var archive: PackResult
    /// Whether an existing fixture of the version was replaced (`force`).
    public internal(set) var replacedExisting: Bool = false
    /// The lines of `fixturekit.lock` the capture and the pack wrote.
    public internal(set) var lock: [LockEdit] = []
    /// What the configuration does not say of the version: frozen all the same
    /// (a release pipeline may freeze a version before its configuration names it).
    public internal(set) var warnings: [String] = []
}

/// Capture, anonymization, manifest, sums and pack in one step, for release pipelines.
public enum Freeze {
    /// Captures `store` as the fixture of `version` in the corpus of `configPath`
    /// (its anonymization rules applied by the capture, unless `anonymize` opts
    /// out), then packs the fixture beside it with its `.sha256`.
    /// - Parameters:
    ///   - force: replace an existing fixture of the version, and its archive.
    ///   - progress: told of each step.
    /// - Throws: ``FixtureKitError``, its `what` starting with `freeze`; a store
    ///   whose file name is not the corpus' `store` is refused, since migrations
    ///   look the store up by that name.
    public static func freeze(
        store: String, version: String, configPath: String, mode: CaptureMode = .snapshot, force: Bool = false,
        anonymize: CaptureAnonymization = CaptureAnonymization(), pack: PackOptions = PackOptions(), progress: WorkProgress? = nil
    ) throws(FixtureKitError) -> FreezeResult {
        let configuration: CorpusConfiguration
        do { configuration = try CorpusConfiguration.load(configPath) } catch { throw error.within("freeze") }
        let name = String(store.split(separator: "/").last ?? "")
        guard name == configuration.store else {
            throw FixtureKitError(
                what: "freeze", path: store, why: "the store is named \(name), the corpus expects \(configuration.store)",
                hint: "copy it, with its -wal, as \(configuration.store) into a folder of its own first")
        }
        // The version, the archive's path and what the lock records are checked before the capture writes anything.
        _ = try FixtureFolder.path(of: version, in: configuration.folder, what: "freeze", path: store)
        var pack = pack
        pack.force = pack.force || force
        let archivePath = configuration.resolve(configuration.archiveStem(of: version) + pack.format.suffix)
        _ = try CorpusLock.guardRewrite(of: archivePath, archive: true, what: "freeze", force: pack.force)
        let capture: CaptureResult
        do {
            capture = try Capture.capture(
                store: store, version: version, corpus: configuration.folder, mode: mode, force: pack.force, anonymize: anonymize, progress: progress)
        } catch {
            throw error.renamingOperation("capture", to: "freeze")
        }
        do {
            let archive = try FixtureArchive.pack(capture.fixture, options: pack, progress: progress)
            var result = FreezeResult(fixture: capture.fixture, manifest: capture.manifest, archive: archive, replacedExisting: capture.replacedExisting)
            // The capture's lines, with the archive's line as the pack wrote it last.
            result.lock = capture.lock.filter { $0.fact.kind != .archive } + (archive.lock ?? [])
            if version != configuration.current && !configuration.supported.contains(version) {
                result.warnings.append(
                    "\(version) is neither its \"current\" (\(configuration.current)) nor in its \"supported\": migrate runs no path from \(version) until fixturekit.json lists it")
            }
            return result
        } catch {
            throw error.within("freeze")
        }
    }
}

extension FixtureKitError {
    /// The same error told as part of `name`: `capture: anonymize: ...` becomes `freeze: anonymize: ...`.
    func renamingOperation(_ old: String, to name: String) -> FixtureKitError {
        var copy = self
        if what == old {
            copy.what = name
        } else if what.hasPrefix(old + ": ") {
            copy.what = name + what.dropFirst(old.count)
        } else {
            copy.what = name + ": " + what
        }
        return copy
    }
}
