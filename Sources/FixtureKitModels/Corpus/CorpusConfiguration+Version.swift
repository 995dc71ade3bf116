import FixtureKitSystem
import FixtureKitSQLite

/// A live store's version, as the configuration tells it (`userVersions`, `versionQuery`).
package struct StoreVersion: Equatable, Sendable {
    /// The version's label; `nil` when only a `user_version` above the current
    /// version's says that the store is newer.
    package var label: String?
    /// Where it was read: `user_version 2`, `versionQuery`.
    package var evidence: String
    /// Whether it is newer than the configuration's `current`.
    package var isNewer: Bool

    /// `2.0.0 (user_version 2)`, for messages.
    package var description: String {
        guard let label else { return evidence }
        return "\(label) (\(evidence))"
    }
}

extension CorpusConfiguration {
    /// Reads the version of the store open on `database`: `versionQuery`'s answer,
    /// or the label `userVersions` gives its `user_version`; with both, they must agree.
    ///
    /// - Throws: ``StoreError`` (``StoreError/Problem/unknownVersion(_:)``, exit
    ///   status 2) when the version cannot be told: neither key is configured, the
    ///   query fails or returns no label, a `user_version` no label maps to (and
    ///   not above the current one's).
    package func storeVersion(of database: Database) throws(StoreError) -> StoreVersion {
        func unknown(_ why: StoreError.UnknownVersion) -> StoreError {
            StoreError(store: database.path, problem: .unknownVersion(why))
        }
        guard userVersions != nil || versionQuery != nil else { throw unknown(.notConfigured) }
        let current = Version(self.current)
        var fromQuery: StoreVersion?
        if let query = versionQuery {
            let value: SQLiteValue?
            do { value = try database.scalar(query) } catch {
                throw unknown(.queryFailed(error))
            }
            guard let value, value != .null else { throw unknown(.noAnswer) }
            let label = value.description
            guard let version = Version(label) else { throw unknown(.notALabel(label)) }
            fromQuery = StoreVersion(label: label, evidence: "versionQuery", isNewer: current.map { $0 < version } ?? false)
        }
        var fromUserVersion: StoreVersion?
        if let userVersions {
            let number: Int
            do { number = Int(try database.scalar("PRAGMA user_version")?.integer ?? 0) } catch {
                throw unknown(.userVersionUnread(error))
            }
            let evidence = "user_version \(number)"
            // Versions that share the number share the schema (no stage between
            // them): the newest stands for them all, `current` when it is one.
            if let label = userVersions.filter({ $0.value == number }).keys.compactMap(Version.init).max()?.label {
                fromUserVersion = StoreVersion(label: label, evidence: evidence, isNewer: Version(label).flatMap { version in current.map { $0 < version } } ?? false)
            } else if let currentNumber = userVersions[self.current], number > currentNumber {
                fromUserVersion = StoreVersion(label: nil, evidence: evidence, isNewer: true)
            } else if fromQuery == nil {
                throw unknown(.unmappedUserVersion(evidence: evidence))
            }
        }
        switch (fromQuery, fromUserVersion) {
        case let (query?, user?) where query.label != user.label && !shareUserVersion(query.label, user.label):
            throw unknown(.disagreement("versionQuery says \(query.label ?? "?"), \(user.label.map { "\(user.evidence) says \($0)" } ?? "\(user.evidence) is not one of \"userVersions\"")"))
        case let (query?, _):
            return query
        case let (nil, user?):
            return user
        case (nil, nil):
            throw unknown(.notConfigured)
        }
    }
}

extension CorpusConfiguration {
    /// Whether `userVersions` gives both labels one number.
    fileprivate func shareUserVersion(_ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs, let rhs, let left = userVersions?[lhs] else { return false }
        return userVersions?[rhs] == left
    }
}
