// swift-tools-version:6.0
import PackageDescription

// The library is built in layers, each a target that depends only on those below:
//
//   primitives         FixtureKitSystem, FixtureKitSQLite, FixtureKitCrypto, FixtureKitArchiveIO
//                      (the only targets that import the C modules)
//   models, formats    FixtureKitModels (store sets, manifests, SHA256SUMS, corpus configuration)
//   operations         FixtureKit (capture, anonymize, pack, verify, migrate, upgrade, ...)
//   the tool           FixtureKitTool
//
// A target cannot import one above it. SwiftPM hands every C module map to every
// target that depends on a primitive, so the `LayerCheck` plugin, applied to every
// target above the primitives, fails the build when one of their files imports a C module,
// or Glibc unless the plugin's list (which only shrinks) still allows the file.
let layerCheck: [Target.PluginUsage] = [.plugin(name: "LayerCheck")]
/// Each file imports the modules whose members it uses: an extension's member
/// is not seen through another file's import (SE-0444), so that a file's import
/// block says what it uses, a Glibc `stat` field included.
let importsPerFile: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "fixturekit",
    products: [
        .library(name: "FixtureKit", targets: ["FixtureKit"]),
        .executable(name: "fixturekit", targets: ["FixtureKitTool"]),
    ],
    targets: [
        // MARK: - C modules
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // The code a stage's process runs between fork() and exec().
        .systemLibrary(name: "CSystem"),

        // MARK: - Primitives
        .target(name: "FixtureKitSystem", dependencies: ["CSystem"], swiftSettings: importsPerFile),
        .target(name: "FixtureKitSQLite", dependencies: ["CSQLite", "FixtureKitSystem", "FixtureKitCrypto"], swiftSettings: importsPerFile),
        .target(name: "FixtureKitCrypto", dependencies: ["CCrypto", "FixtureKitSystem"], swiftSettings: importsPerFile),
        .target(name: "FixtureKitArchiveIO", dependencies: ["CArchive", "FixtureKitSystem", "FixtureKitCrypto"], swiftSettings: importsPerFile),

        // MARK: - Models and formats
        .target(
            name: "FixtureKitModels",
            dependencies: ["FixtureKitSystem", "FixtureKitSQLite", "FixtureKitCrypto", "FixtureKitArchiveIO"],
            swiftSettings: importsPerFile,
            plugins: layerCheck
        ),

        // MARK: - Operations: the library product
        .target(
            name: "FixtureKit",
            dependencies: ["FixtureKitModels", "FixtureKitSystem", "FixtureKitSQLite", "FixtureKitCrypto", "FixtureKitArchiveIO"],
            swiftSettings: importsPerFile,
            plugins: layerCheck
        ),

        // MARK: - The tool
        // The tool's module is not called `fixturekit`: a module name that differs
        // from the library's only by case would collide on case-insensitive disks.
        .executableTarget(
            name: "FixtureKitTool",
            dependencies: ["FixtureKit"],
            path: "Sources/fixturekit",
            swiftSettings: importsPerFile,
            plugins: layerCheck
        ),

        // MARK: - The layer check
        .plugin(name: "LayerCheck", capability: .buildTool()),

        // MARK: - Tests
        // The helpers the test targets share: temporary folders, stores and corpora
        // built in code, the tool run in this process, on a terminal or as a process.
        // A test target with no tests of its own, so that its helpers may use
        // `@testable import` and #expect (a regular target is built by `swift build -c
        // release` too, where no module is compiled for testing).
        .testTarget(
            name: "FixtureKitTestSupport",
            dependencies: ["FixtureKit", "FixtureKitTool"]
        ),
        // The operations, end to end, one folder per subject as in Sources/FixtureKit.
        .testTarget(
            name: "FixtureKitTests",
            dependencies: ["FixtureKit", "FixtureKitTool", "FixtureKitTestSupport"]
        ),
        // The tool's own tests: parsing, usage and help, wording, exit codes, the
        // terminal, the README and docs/commands against --help.
        .testTarget(
            name: "FixtureKitToolTests",
            dependencies: ["FixtureKitTool", "FixtureKit", "FixtureKitTestSupport"]
        ),
        // A client of the library: imports FixtureKit without @testable, so that the
        // public API (docs/library.md) is compiled and exercised as an app would use it.
        // Without package access it sees only what is public, as an app would.
        .testTarget(
            name: "FixtureKitClientTests",
            dependencies: ["FixtureKit"],
            packageAccess: false
        ),
        // Unit tests of one layer each, folder by folder as in Sources/: their files
        // import that layer and the shared helpers, nothing above.
        .testTarget(
            name: "FixtureKitModelsTests",
            dependencies: ["FixtureKitModels", "FixtureKitSQLite", "FixtureKitCrypto", "FixtureKitSystem", "FixtureKitTestSupport"]
        ),
        .testTarget(
            name: "FixtureKitSQLiteTests",
            dependencies: ["FixtureKitSQLite", "FixtureKitSystem", "FixtureKitTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
