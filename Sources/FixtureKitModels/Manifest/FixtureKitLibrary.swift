
/// Facts about the library itself.
package enum FixtureKitLibrary {
    /// The version of fixturekit, recorded in every manifest it writes.
    package static let version = "0.1.0"
}
