import Foundation
import PackagePlugin

/// Fails the build when a file of a target above the primitives imports a C
/// module or Glibc.
///
/// Only the primitives (FixtureKitSystem, FixtureKitSQLite, FixtureKitCrypto,
/// FixtureKitArchiveIO) may import `CSQLite`, `CArchive`, `CCrypto`, `CSystem` or
/// `Glibc`: the operations and the tool reach the system through them. SwiftPM
/// hands every C module map to every target that depends on a primitive, so the
/// target graph alone does not stop such an import: this check, run before each
/// build of the targets it is applied to, does. It catches every form of the
/// import (`import CSQLite`, `import struct Glibc.stat`, `@preconcurrency import`,
/// `internal import`, ...).
@main
struct LayerCheck: BuildToolPlugin {
    /// A line that imports a C module or Glibc, whatever its attributes, access and kind.
    static let pattern = #"^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?(CSQLite|CArchive|CCrypto|CSystem|Glibc)([[:space:].]|$)"#

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let files = target.sourceFiles(withSuffix: "swift").map(\.url.path)
        return command(target, pattern: Self.pattern, files: files, context: context).map { [$0] } ?? []
    }

    /// The check that no file of `files` has a line that matches `pattern`.
    private func command(_ target: SourceModuleTarget, pattern: String, files: [String], context: PluginContext) -> Command? {
        guard !files.isEmpty else { return nil }
        let script = """
            found=$(grep -En '\(pattern)' "$@") || exit 0
            printf '%s\\n' "$found" | while IFS= read -r line; do
                printf '%s: error: only the primitives may import the C modules and Glibc\\n' "${line%%:*}:$(printf '%s' "$line" | cut -d: -f2)" >&2
            done
            exit 1
            """
        return .prebuildCommand(
            displayName: "LayerCheck \(target.name): no C module nor Glibc imported above the primitives",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "layer-check"] + files,
            outputFilesDirectory: context.pluginWorkDirectoryURL
        )
    }
}
