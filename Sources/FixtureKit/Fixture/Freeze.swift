/// What `freeze` did.
public struct FreezeResult: Sendable, Codable {
    public var fixture: String
    public var manifest: Manifest
    public var archive: PackResult
    /// The lines of `fixturekit.lock` the capture and the pack wrote.
    public var lock: [LockEdit] = []
}

/// Capture, anonymization, manifest, sums and pack in one step, for release pipelines.
public enum Freeze {
    /// Captures `store` as the fixture of `version` in the corpus of `configPath`
    /// (its anonymization rules applied by the capture), then packs the fixture
    /// beside it with its `.sha256`.
    /// - Parameter anonymize: the opt-out for a store of synthetic data (a corpus
    ///   without rules is refused otherwise), and where the key is read from.
    /// - Throws: ``FixtureKitError``; a store whose file name is not the corpus'
    ///   `store` is refused, since migrations look the store up by that name.
    public static func freeze(store: String, version: String, configPath: String, mode: CaptureMode = .snapshot, pack: PackOptions = PackOptions(), anonymize: CaptureAnonymization = CaptureAnonymization()) throws(FixtureKitError) -> FreezeResult {
        let configuration = try CorpusConfiguration.load(configPath)
        let name = String(store.split(separator: "/").last ?? "")
        guard name == configuration.store else {
            throw FixtureKitError(
                what: "freeze", path: store, why: "the store is named \(name), the corpus expects \(configuration.store)",
                hint: "copy it under the name \(configuration.store) first")
        }
        // The version, the archive's path and what the lock records are checked before the capture writes anything.
        _ = try FixtureFolder.path(of: version, in: configuration.folder, what: "freeze", path: store)
        let archivePath = configuration.resolve(configuration.archiveStem(of: version) + pack.format.suffix)
        _ = try CorpusLock.guardRewrite(of: archivePath, archive: true, what: "freeze", force: pack.force)
        let capture = try Capture.capture(store: store, version: version, corpus: configuration.folder, mode: mode, force: pack.force, anonymize: anonymize)
        do {
            let archive = try FixtureArchive.pack(capture.fixture, options: pack)
            var result = FreezeResult(fixture: capture.fixture, manifest: capture.manifest, archive: archive)
            // The capture's lines, with the archive's line as the pack wrote it last.
            result.lock = capture.lock.filter { $0.fact.kind != .archive } + (archive.lock ?? [])
            return result
        } catch {
            throw error.within("freeze")
        }
    }
}
