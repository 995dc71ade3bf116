import FixtureKitSystem

/// Facts about the library itself.
public enum FixtureKitLibrary {
    /// The version of fixturekit, recorded in every manifest it writes.
    public static let version = "0.1.0"
}
