import FixtureKitSystem
import FixtureKitArchiveIO

extension CorpusConfiguration {
    /// The name `pack` gives the archive of `version`, without its suffix:
    /// `App-1.0.0` for the store `App.sqlite`.
    func archiveStem(of version: String) -> String {
        FixtureArchive.stem(of: store) + "-" + version
    }

    /// The archive of `version` in the corpus (`App-1.0.0.tar.zst`, as `pack` names
    /// it), in the first format present: zstd, gzip, xz, plain tar.
    func archivePath(of version: String) -> String? {
        ArchiveFormat.allCases.map { resolve(archiveStem(of: version) + $0.suffix) }.first { (try? POSIX.lstatIfPresent($0)) != nil }
    }

    /// The version an archive of this corpus holds, read from its file name
    /// (`1.0.0` for `App-1.0.0.tar.zst`), or `nil` when the name is not one `pack`
    /// gives this corpus' archives.
    func archiveVersion(fileName: String) -> String? {
        guard let format = ArchiveFormat(fileName: fileName) else { return nil }
        let prefix = FixtureArchive.stem(of: store) + "-"
        let name = fileName.dropLast(format.suffix.count)
        guard name.hasPrefix(prefix) else { return nil }
        let version = String(name.dropFirst(prefix.count))
        return Version(version) == nil ? nil : version
    }
}
