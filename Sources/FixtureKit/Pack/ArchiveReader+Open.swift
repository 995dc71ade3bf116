import FixtureKitArchiveIO
import FixtureKitModels
import FixtureKitSystem

extension ArchiveReader {
    /// Opens `archive` for reading, with the failure said for `what`.
    static func open(_ archive: String, what: String) throws(FixtureKitError) -> ArchiveReader {
        do {
            return try ArchiveReader(path: archive)
        } catch let error as ArchiveError {
            throw FixtureKitError(what: what, path: archive, why: error.reason, cause: error)
        } catch let error as FileSystemError where error.code == .noSuchFileOrDirectory {
            throw FixtureKitError(what: what, path: archive, why: "no such file")
        } catch {
            throw FixtureKitError.wrapping(error, what: what, path: archive)
        }
    }
}
