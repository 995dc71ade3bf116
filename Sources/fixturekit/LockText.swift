import FixtureKit

/// How the writes of `fixturekit.lock` read: what a command added, replaced or kept.
enum LockText {
    /// One line per fact: `added`, `removed`, `replaced ... by ...`, or `unchanged`.
    static func lines(_ edits: [LockEdit], lock: String) -> [String] {
        edits.map { edit in
            switch (edit.old, edit.new) {
            case (nil, let new?): "\(lock): added \(edit.fact) \(new.prefix(12))…"
            case (let old?, nil): "\(lock): removed \(edit.fact) (was \(old.prefix(12))…)"
            case let (old?, new?) where old != new: "\(lock): \(edit.fact): replaced \(old.prefix(12))… by \(new.prefix(12))…"
            case let (_, new): "\(lock): \(edit.fact): unchanged (\((new ?? "").prefix(12))…)"
            }
        }
    }

    /// What a command that writes a version's lines says: one line when it only
    /// added lines (a new version); every line, kept ones too, when it rewrote locked ones.
    static func report(_ edits: [LockEdit], lock: String) -> [String] {
        guard !edits.isEmpty else { return [] }
        if edits.allSatisfy({ $0.old == nil }) {
            let versions = Set(edits.map(\.fact.version)).sorted().joined(separator: ", ")
            let kinds = edits.map { edit in
                guard let path = edit.fact.path else { return edit.fact.kind.rawValue }
                // A declaration's path is the version its stage starts from.
                return edit.fact.kind == .declaration ? "declaration of \(path) -> \(edit.fact.version)" : "\(edit.fact.kind.rawValue) \(path)"
            }
            return ["\(lock): locked \(versions): \(kinds.joined(separator: ", "))"]
        }
        return lines(edits, lock: lock)
    }

    /// `MigrationFixtures/fixturekit.lock` for the fixture folder or archive `path`, as the user named it.
    static func lockPath(besideFixture path: String) -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        if trimmed == "." { return "../" + CorpusLock.fileName }
        let parent = Console.parentFolder(of: trimmed)
        return parent == "." && !trimmed.contains("/") ? CorpusLock.fileName : parent.appendingPathForDisplay(CorpusLock.fileName)
    }
}
