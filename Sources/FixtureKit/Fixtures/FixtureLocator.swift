import FixtureKitSystem
import FixtureKitModels

/// Finds the store in what a user names: a store's main file, or a fixture folder.
package enum FixtureLocator {
    /// Whether `path` is a folder (links are not followed).
    package static func isFolder(_ path: String) -> Bool {
        guard let info = try? POSIX.lstatIfPresent(path) else { return false }
        return info.kind == .folder
    }

    /// The fixture folder that holds the store `storePath` when the store is one
    /// of its files (its folder's SHA256SUMS lists it): a store named inside a
    /// fixture is handled as that fixture, verified and copied, never opened in place.
    package static func fixture(holding storePath: String) -> String? {
        guard let info = try? POSIX.lstatIfPresent(storePath), info.kind == .regular else { return nil }
        let folder = AtomicFile.parentFolder(of: storePath)
        let name = RelativePath(String(storePath.split(separator: "/").last ?? Substring(storePath)))
        guard let bytes = try? POSIX.readFile(folder.appendingPath(SHA256Sums.fileName), limit: 64 << 20),
              SHA256Sums(parsing: bytes).entries.contains(where: { $0.path == name }) else { return nil }
        return folder
    }

    /// The store's main file in a fixture folder: the manifest's `store`, or else
    /// the only file in the folder that starts with SQLite's header.
    /// - Throws: ``FixtureKitError`` when there is none, or more than one.
    package static func storePath(inFixture folder: String) throws(FixtureKitError) -> String {
        let manifestPath = folder.appendingPath(Manifest.fileName)
        if (try? POSIX.lstatIfPresent(manifestPath)) != nil {
            do {
                if let manifest = try Manifest.decodeIfWrittenByFixtureKit(try POSIX.readFile(manifestPath)) {
                    guard manifest.store.isSafeFileName else {
                        throw FixtureKitError(what: "read manifest", path: manifestPath, why: "\"store\" is not a file name")
                    }
                    return folder.appendingPath(manifest.store)
                }
            } catch let error as FixtureKitError {
                throw error
            } catch let error as FileSystemError {
                throw FixtureKitError(what: "read manifest", path: manifestPath, why: error.reason, cause: error)
            } catch {
                throw FixtureKitError(what: "read manifest", path: manifestPath, why: JSONDecoderFactory.describe(error))
            }
        }
        let names: [[UInt8]]
        do { names = try POSIX.listDirectory(folder) } catch {
            throw FixtureKitError(failed: error)
        }
        let stores = names.map { String(pathBytes: $0) }.sorted().filter { name in
            let path = folder.appendingPath(name)
            guard let info = try? POSIX.lstat(path), info.kind == .regular,
                  let reader = try? SequentialReader(path: path) else { return false }
            var magic = [UInt8](repeating: 0, count: FileFormat.databaseMagic.count)
            return (try? reader.read(into: &magic)) == magic.count && magic == FileFormat.databaseMagic
        }
        guard stores.count == 1 else {
            throw FixtureKitError(
                what: "find store", path: folder,
                why: stores.isEmpty ? "no SQLite store in the folder" : "\(stores.count) SQLite stores in the folder (\(stores.joined(separator: ", ")))",
                hint: "name the store's file")
        }
        return folder.appendingPath(stores[0])
    }
}
