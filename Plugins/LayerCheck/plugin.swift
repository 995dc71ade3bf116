import Foundation
import PackagePlugin

/// Fails the build when a file of a target above the primitives imports a C module,
/// or Glibc (unless ``glibcAllowed`` still lists it).
///
/// Only the primitives (FixtureKitSystem, FixtureKitSQLite, FixtureKitCrypto,
/// FixtureKitArchiveIO) may import `CSQLite`, `CArchive`, `CCrypto` or `CSystem`.
/// SwiftPM hands every C module map to every target that depends on a primitive,
/// so the target graph alone does not stop such an import: this check, run before
/// each build of the targets it is applied to, does. It catches every form of the
/// import (`import CSQLite`, `import struct CSQLite.sqlite3`, `@preconcurrency import`,
/// `internal import`, ...).
@main
struct LayerCheck: BuildToolPlugin {
    /// Files still allowed to import a C module, each with the reason. Empty it
    /// as the files move their C calls down into the primitives.
    static let allowed: [String] = []

    /// Files above the primitives still allowed to import Glibc: their POSIX calls
    /// have not yet moved down into FixtureKitSystem. The list only shrinks: no file
    /// joins it, and one that stops importing Glibc leaves it (LayerCheckListTests).
    static let glibcAllowed: [String] = [
        "FixtureKit/Anonymize/AnonymizationEngine.swift",
        "FixtureKit/Anonymize/AnonymizationSession.swift",
        "FixtureKit/Anonymize/Anonymize+Capture.swift",
        "FixtureKit/Anonymize/Anonymize.swift",
        "FixtureKit/Anonymize/KeyedPrefetch.swift",
        "FixtureKit/Anonymize/LeakScan+Classify.swift",
        "FixtureKit/Anonymize/LeakScan.swift",
        "FixtureKit/Anonymize/LeakScanner.swift",
        "FixtureKit/Anonymize/LeakSpool.swift",
        "FixtureKit/Anonymize/OutputCache.swift",
        "FixtureKit/Anonymize/PatternIndex+Build.swift",
        "FixtureKit/Anonymize/PatternIndex+Search.swift",
        "FixtureKit/Anonymize/PatternIndex.swift",
        "FixtureKit/Capture/Capture+Source.swift",
        "FixtureKit/Capture/Capture+StagedWork.swift",
        "FixtureKit/Capture/Capture.swift",
        "fixturekit/Command.swift",
        "fixturekit/Console.swift",
        "fixturekit/Tool.swift",
        "fixturekit/main.swift",
    ]

    /// A line that imports a C module, whatever its attributes, access and kind.
    static let pattern = #"^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?(CSQLite|CArchive|CCrypto|CSystem)([[:space:].]|$)"#
    /// A line that imports Glibc, in the same forms.
    static let glibcPattern = pattern.replacingOccurrences(of: "(CSQLite|CArchive|CCrypto|CSystem)", with: "Glibc")

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let paths = target.sourceFiles(withSuffix: "swift").map(\.url.path)
        func files(without list: [String]) -> [String] {
            paths.filter { path in !list.contains { path.hasSuffix("/" + $0) } }
        }
        return [
            command(target, "no C module", pattern: Self.pattern, files: files(without: Self.allowed), context: context),
            command(target, "no Glibc", pattern: Self.glibcPattern, files: files(without: Self.glibcAllowed), context: context),
        ].compactMap { $0 }
    }

    /// The check that no file of `files` has a line that matches `pattern`.
    private func command(_ target: SourceModuleTarget, _ what: String, pattern: String, files: [String], context: PluginContext) -> Command? {
        guard !files.isEmpty else { return nil }
        let module = what == "no Glibc" ? "Glibc" : "the C modules"
        let script = """
            found=$(grep -En '\(pattern)' "$@") || exit 0
            printf '%s\\n' "$found" | while IFS= read -r line; do
                printf '%s: error: only the primitives may import \(module)\\n' "${line%%:*}:$(printf '%s' "$line" | cut -d: -f2)" >&2
            done
            exit 1
            """
        return .prebuildCommand(
            displayName: "LayerCheck \(target.name): \(what) imported above the primitives",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "layer-check"] + files,
            outputFilesDirectory: context.pluginWorkDirectoryURL.appendingPathComponent(what == "no Glibc" ? "glibc" : "c")
        )
    }
}
