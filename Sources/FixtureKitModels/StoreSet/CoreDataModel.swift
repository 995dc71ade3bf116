import Foundation
import FixtureKitSystem
import FixtureKitSQLite

/// The model identity of a Core Data or SwiftData store, from the binary
/// property list Core Data keeps in `Z_METADATA.Z_PLIST`.
public struct CoreDataModel: Codable, Equatable, Sendable {
    /// `NSStoreModelVersionIdentifiers`: the model versions' identifiers, often `[""]`.
    public package(set) var versionIdentifiers: [String]
    /// `NSStoreModelVersionChecksumKey`: Core Data's checksum of the whole model.
    public package(set) var versionChecksum: String?
    /// `NSStoreModelVersionHashes`: each entity's version hash, base64.
    public package(set) var entityVersionHashes: [String: String]
    /// `NSStoreModelVersionHashesVersion`.
    public package(set) var hashesVersion: Int?
    /// `NSStoreType`: `SQLite`.
    public package(set) var storeType: String?

    /// The identity read from `database`, or `nil` when it is not a Core Data store.
    /// - Throws: ``FormatError`` when `Z_METADATA` exists but cannot be read (its
    ///   ``FormatError/cause`` the ``SQLiteError``) or does not hold Core Data's property list.
    public static func read(from database: Database) throws(FormatError) -> CoreDataModel? {
        do {
            guard try database.scalar("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'Z_METADATA'") == .integer(1) else {
                return nil
            }
            guard case .blob(let plist)? = try database.scalar("SELECT Z_PLIST FROM Z_METADATA ORDER BY Z_VERSION DESC LIMIT 1") else {
                throw FormatError(.coreDataMetadata, file: database.path, expected: "Z_METADATA has no Z_PLIST blob")
            }
            return try CoreDataModel(propertyList: plist, path: database.path)
        } catch let error as FormatError {
            throw error
        } catch {
            throw FormatError(.coreDataMetadata, file: database.path, expected: "\(error)", cause: error)
        }
    }

    /// Reads the identity from the metadata property list's bytes.
    init(propertyList bytes: [UInt8], path: String) throws(FormatError) {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        } catch {
            throw FormatError(.coreDataMetadata, file: path, expected: "Z_METADATA.Z_PLIST is not a property list", cause: error)
        }
        guard let metadata = object as? [String: Any] else {
            throw FormatError(.coreDataMetadata, file: path, expected: "Z_METADATA.Z_PLIST is not a dictionary")
        }
        versionIdentifiers = (metadata["NSStoreModelVersionIdentifiers"] as? [Any])?.map { "\($0)" } ?? []
        versionChecksum = metadata["NSStoreModelVersionChecksumKey"] as? String
        var hashes: [String: String] = [:]
        for (entity, value) in (metadata["NSStoreModelVersionHashes"] as? [String: Any]) ?? [:] {
            if let data = value as? Data { hashes[entity] = data.base64EncodedString() }
        }
        entityVersionHashes = hashes
        hashesVersion = (metadata["NSStoreModelVersionHashesVersion"] as? NSNumber)?.intValue
        storeType = metadata["NSStoreType"] as? String
    }
}
