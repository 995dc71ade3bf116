import Foundation
import PackagePlugin

/// Fails the build when a file of a target above the primitives imports a C module.
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

    /// A line that imports a C module, whatever its attributes, access and kind.
    static let pattern = #"^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?(CSQLite|CArchive|CCrypto|CSystem)([[:space:].]|$)"#

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles(withSuffix: "swift").map(\.url.path).filter { path in
            !Self.allowed.contains { path.hasSuffix("/" + $0) }
        }
        guard !files.isEmpty else { return [] }
        let script = """
            found=$(grep -En '\(Self.pattern)' "$@") || exit 0
            printf '%s\\n' "$found" | while IFS= read -r line; do
                printf '%s: error: only the primitives may import the C modules\\n' "${line%%:*}:$(printf '%s' "$line" | cut -d: -f2)" >&2
            done
            exit 1
            """
        return [
            .prebuildCommand(
                displayName: "LayerCheck \(target.name): no C module imported above the primitives",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "layer-check"] + files,
                outputFilesDirectory: context.pluginWorkDirectoryURL
            )
        ]
    }
}
