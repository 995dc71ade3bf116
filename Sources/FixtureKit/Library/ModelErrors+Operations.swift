import FixtureKitSQLite
import FixtureKitModels

// The models throw their own typed errors (``StoreError``, ``FormatError``) with
// the facts. The operations throw ``FixtureKitError``: these are the models'
// calls as the operations make them, each error told with the same words and
// kept as the cause (`error.underlying(StoreError.self)`).

extension StoreSet {
    /// ``init(storePath:)``, its ``StoreError`` told as a ``FixtureKitError``.
    package static func locate(_ storePath: String) throws(FixtureKitError) -> StoreSet {
        do { return try StoreSet(storePath: storePath) } catch { throw FixtureKitError(error) }
    }

    /// ``readHeader()``, its ``StoreError`` told as a ``FixtureKitError``.
    package func header() throws(FixtureKitError) -> DatabaseHeader {
        do { return try readHeader() } catch { throw FixtureKitError(error) }
    }
}

extension CorpusLock {
    /// ``load(corpus:)``, its ``FormatError`` told as a ``FixtureKitError``.
    package static func existing(in corpus: String) throws(FixtureKitError) -> CorpusLock? {
        do { return try load(corpus: corpus) } catch { throw FixtureKitError(error) }
    }
}

extension CorpusConfiguration {
    /// ``checkTableNames(path:)``, its ``FormatError`` told as a ``FixtureKitError``.
    package func checkNames(path: String) throws(FixtureKitError) {
        do { try checkTableNames(path: path) } catch { throw FixtureKitError(error) }
    }
}

extension ScratchStore {
    /// ``init(copying:operation:)`` in the context `what`, its ``StoreError``
    /// told as a ``FixtureKitError``.
    package convenience init(copying set: StoreSet, what: String) throws(FixtureKitError) {
        do { try self.init(copying: set, operation: what) } catch { throw FixtureKitError(error) }
    }
}

extension StoreContents {
    /// Reads everything from an open connection (``init(reading:countingForeignKeys:)``).
    /// - Parameter countingForeignKeys: `false` leaves ``foreignKeyViolations``
    ///   at 0 without looking, for a reader that does not use it.
    /// - Throws: ``FixtureKitError`` that tells the ``StoreError`` and keeps it as its cause.
    public init(database: Database, countingForeignKeys: Bool = true) throws(FixtureKitError) {
        do { try self.init(reading: database, countingForeignKeys: countingForeignKeys) } catch { throw FixtureKitError(error) }
    }
}

extension StoreInspection {
    /// ``init(inspecting:readContents:access:hashContent:)``, its ``StoreError``
    /// told as a ``FixtureKitError``.
    package init(set: StoreSet, readContents: Bool, access: ContentsAccess, hashContent: Bool = false) throws(FixtureKitError) {
        do { try self.init(inspecting: set, readContents: readContents, access: access, hashContent: hashContent) } catch { throw FixtureKitError(error) }
    }
}

extension Manifest {
    /// ``init(version:mode:inspected:)``, its ``StoreError`` told as a ``FixtureKitError``.
    package init(version: String, mode: String, inspection: StoreInspection) throws(FixtureKitError) {
        do { try self.init(version: version, mode: mode, inspected: inspection) } catch { throw FixtureKitError(error) }
    }
}
