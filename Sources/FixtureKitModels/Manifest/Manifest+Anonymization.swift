import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitCrypto

extension Manifest {
    /// How a fixture was anonymized: never the key, only what tells keys apart.
    public struct Anonymization: Codable, Equatable, Sendable {
        /// The corpus' rules were applied.
        package static let rulesMode = "rules"
        /// `capture --no-anonymize`: the user declared the store synthetic.
        package static let optedOutMode = "opted-out"

        /// `rules` or `opted-out`.
        public package(set) var mode: String
        /// SHA-256 of the rules file's bytes.
        public package(set) var rules: String?
        /// The first 8 bytes of HMAC-SHA-256("fixturekit key check v1") under the
        /// key, in hex: fixtures anonymized with one key can be told from others.
        public package(set) var keyCheck: String?
        /// The strategy of each column with a rule: `{"users.email": "pseudonym"}`.
        public package(set) var columns: [String: String]?
        /// What the rules kept of the data, in counts (see ``DataProfile``);
        /// absent in manifests written before fixturekit measured it.
        public package(set) var profile: DataProfile?

        package init(mode: String, rules: String? = nil, keyCheck: String? = nil, columns: [String: String]? = nil, profile: DataProfile? = nil) {
            self.mode = mode
            self.rules = rules
            self.keyCheck = keyCheck
            self.columns = columns
            self.profile = profile
        }
    }
}
