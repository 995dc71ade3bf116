import Foundation
import Testing
@testable import FixtureKitModels

/// Core Data metadata that is not a property list of a dictionary: a format error.
@Suite struct CoreDataModelTests {
    @Test func metadataThatIsNotADictionary() throws {
        do { _ = try CoreDataModel(propertyList: [1, 2, 3], path: "App.sqlite"); Issue.record("read garbage") } catch {
            #expect(error.format == .coreDataMetadata)
            #expect(error.file == "App.sqlite")
            #expect(error.expected == "Z_METADATA.Z_PLIST is not a property list")
            #expect(error.cause != nil)
        }
        let array = try PropertyListSerialization.data(fromPropertyList: [1], format: .binary, options: 0)
        do { _ = try CoreDataModel(propertyList: Array(array), path: "App.sqlite"); Issue.record("read an array") } catch {
            #expect(error == FormatError(.coreDataMetadata, file: "App.sqlite", expected: "Z_METADATA.Z_PLIST is not a dictionary"))
            #expect(error.description == "read Core Data metadata: App.sqlite: Z_METADATA.Z_PLIST is not a dictionary")
        }
        let dictionary = try PropertyListSerialization.data(fromPropertyList: ["NSStoreType": "SQLite"], format: .binary, options: 0)
        #expect(try CoreDataModel(propertyList: Array(dictionary), path: "App.sqlite").storeType == "SQLite")
    }
}
