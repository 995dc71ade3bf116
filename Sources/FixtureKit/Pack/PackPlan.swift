import Foundation
import FixtureKitSystem
import FixtureKitCrypto
import FixtureKitArchiveIO
import FixtureKitModels

/// What `pack` will write, found before the archive is started: the folder's
/// SHA256SUMS, and its files and folders in the archive's order.
struct PackPlan {
    struct File {
        var path: RelativePath
        var digest: SHA256Digest
        var size: UInt64
    }

    enum Item {
        case sums
        case folder(RelativePath)
        case file(File)
    }

    static let manifestPath = RelativePath("manifest.json")

    let folder: String
    /// SHA256SUMS exactly as read: the archive holds these bytes.
    let sumsBytes: [UInt8]
    let files: [File]
    /// `SHA256SUMS`, `manifest.json`, then the other paths bytewise, each folder
    /// on the way to a file before it.
    let items: [Item]

    var fileCount: Int { files.count }
    var folderCount: Int { items.filter { if case .folder = $0 { true } else { false } }.count }
    var fileBytes: UInt64 { files.reduce(0) { $0 + $1.size } }

    /// Reads `folder/SHA256SUMS` and lists the folder; a folder whose listing
    /// does not match its SHA256SUMS is refused with ``failedCheck(folder:)``.
    init(folder: String) throws(FixtureKitError) {
        self.folder = folder
        let info: FileStatus?
        do { info = try POSIX.lstatIfPresent(folder) } catch { throw FixtureKitError.wrapping(error, what: "pack") }
        guard let info else { throw FixtureKitError(what: "pack", path: folder, why: "no such folder") }
        guard info.kind == .folder else {
            throw FixtureKitError(what: "pack", path: folder, why: "not a fixture folder", hint: "pack a folder holding SHA256SUMS")
        }
        let sumsBytes: [UInt8]
        let items: [FolderItem]
        do {
            sumsBytes = try POSIX.readFile(folder.appendingPath(SHA256Sums.fileName))
            items = try FolderListing.items(below: folder)
        } catch {
            // Absent or unreadable SHA256SUMS, or an unreadable folder: as verify says it.
            throw Self.failedCheck(folder: folder)
        }
        let sums = SHA256Sums(parsing: sumsBytes)
        let present = Set(items.map(\.path))
        var sizes: [RelativePath: UInt64] = [:]
        for item in items {
            guard case .file(let size) = item.kind else { throw Self.failedCheck(folder: folder) }
            sizes[item.path] = size
        }
        let listed = Set(sums.entries.map(\.path))
        let unlisted = present.subtracting(listed).subtracting([ArchiveScanner.sumsPath])
        guard sums.problems.isEmpty, !sums.entries.isEmpty, !listed.contains(ArchiveScanner.sumsPath),
            unlisted.isEmpty, listed.isSubset(of: present)
        else { throw Self.failedCheck(folder: folder) }

        self.sumsBytes = sumsBytes
        files = sums.entries.map { File(path: $0.path, digest: $0.digest, size: sizes[$0.path] ?? 0) }.sorted { $0.path < $1.path }
        var order: [Item] = [.sums]
        var rest: [(RelativePath, Item)] = []
        var folders: Set<RelativePath> = []
        for file in files {
            for ancestor in file.path.ancestors where folders.insert(ancestor).inserted {
                rest.append((ancestor, .folder(ancestor)))
            }
            if file.path == Self.manifestPath {
                order.append(.file(file))
            } else {
                rest.append((file.path, .file(file)))
            }
        }
        order += rest.sorted { $0.0 < $1.0 }.map(\.1)
        self.items = order
    }

    /// The refusal of a folder that fails its SHA256SUMS, with every problem
    /// `verify` reports (exit status 1).
    static func failedCheck(folder: String) -> FixtureKitError {
        let verification: FolderVerification
        do {
            verification = try Checksums.verifyFolder(folder)
        } catch {
            return error.within("pack")
        }
        guard !verification.passed else {
            return FixtureKitError(what: "pack", path: folder, why: "the folder changed while it was being packed", hint: "pack it again")
        }
        let sumsMissing = verification.problems.contains { $0.kind == .missing && $0.file == SHA256Sums.fileName }
        return FixtureKitError(
            what: "pack", path: folder,
            why: "the folder fails its SHA256SUMS: " + FixtureArchive.summary(of: verification.problems),
            remedy: sumsMissing ? .writeSums(folder: folder) : .verify(path: folder, nothingChanged: false),
            category: .checkFailed, code: .checksumMismatch)
    }

    /// ``failedCheck(folder:)`` for this plan's folder.
    func failedCheck() -> FixtureKitError {
        Self.failedCheck(folder: folder)
    }
}
