// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "fixturekit",
    products: [
        .library(name: "FixtureKit", targets: ["FixtureKit"]),
        .executable(name: "fixturekit", targets: ["FixtureKitTool"]),
    ],
    targets: [
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
        .target(
            name: "FixtureKit",
            dependencies: ["CSQLite", "CArchive", "CCrypto"]
        ),
        // The tool's module is not called `fixturekit`: a module name that differs
        // from the library's only by case would collide on case-insensitive disks.
        .executableTarget(
            name: "FixtureKitTool",
            dependencies: ["FixtureKit"],
            path: "Sources/fixturekit"
        ),
        .testTarget(
            name: "FixtureKitTests",
            dependencies: ["FixtureKit", "FixtureKitTool"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
