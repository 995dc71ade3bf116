import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTool

/// The library's errors carry remedies as values; the tool words them, and is
/// the only one to name its commands and options.
@Suite struct RemedyWordingTests {
    typealias Remedy = FixtureKitError.Remedy

    /// Every remedy, with the hint the tool prints for it (as before remedies were values).
    static let wordings: [(Remedy, String)] = [
        (.replaceExisting, "--force replaces it"),
        (.replaceLockedFixture, "--force rewrites it and its lock line"),
        (.chooseAnotherOutput, "name another file with --output"),
        (.snapshotOrSynthetic, "capture with --mode snapshot, or --no-anonymize for a store that holds synthetic data only"),
        (.closeAppOrSnapshot, "close the app that uses the store, or capture with --mode snapshot"),
        (.rulesOrSynthetic, "name a rules file in \"anonymize\", or declare the store synthetic: --no-anonymize, or \"anonymize\": false for the whole corpus"),
        (.keepRejectedOutput, "a page of no table holds it; `--keep-failed DIR` keeps the output for a look"),
        (.freeSpaceOrMoveBackups, "free some space, or put the backups on another disk with --backups DIR"),
        (.raiseLimit(.size), "raise the limit (--max-size) only for an archive you trust"),
        (.raiseLimit(.ratio), "raise the limit (--max-ratio) only for an archive you trust"),
        (.unpackIntoNewFolder, "a fixture folder is history: unpack into a new folder, or pass --force to replace it"),
        (.finishPendingRestore(store: "/d/App.sqlite", .keepsMigration), "the marker stays: `fixturekit restore --pending /d/App.sqlite` checks the migration again and keeps it"),
        (.finishPendingRestore(store: "/d/App.sqlite", .restoresOnceFixed), "the marker stays: `fixturekit restore --pending /d/App.sqlite` restores the backup once that is fixed"),
        (.finishPendingRestore(store: "/d/App.sqlite", .restoresAfterClosingApp), "close the app that uses the store, then `fixturekit restore --pending /d/App.sqlite` restores it"),
        (.finishPendingRestore(store: "/d/App.sqlite", .finishesOnceFixed), "the store set may be half-restored; the marker stays: `fixturekit restore --pending /d/App.sqlite` finishes the restore once that is fixed"),
        (.finishPendingRestore(store: "/d/App.sqlite", .restoresAgain), "the marker stays: `fixturekit restore --pending /d/App.sqlite` restores the backup again"),
        (.finishPendingRestore(store: "/d/App.sqlite", .finishes), "the marker stays: `fixturekit restore --pending /d/App.sqlite` finishes the restore"),
        (.verifyDeep(folder: "F/1.0.0"), "nothing was changed; `fixturekit verify --deep F/1.0.0` checks the fixture"),
        (.verify(path: "a.tar", nothingChanged: false), "`fixturekit verify a.tar` lists every problem"),
        (.verify(path: "a.tar", nothingChanged: true), "nothing was changed; `fixturekit verify a.tar` lists every problem"),
        (.runVerify(folder: "F/1.0.0"), "run `fixturekit verify F/1.0.0`"),
        (.verifyAgainstLock, "nothing was changed; `fixturekit verify` lists every difference from the lock"),
        (.writeSums(folder: "F/1.0.0"), "write one with `fixturekit sums F/1.0.0`"),
        (.packWritesSumsFirst, "`fixturekit pack` writes it first"),
        (.packWritesChecksumFile, "`fixturekit pack` writes it"),
        (.removeReaderLeftover, "remove it, it holds nothing; `fixturekit sql` looks at a fixture without touching it"),
        (.restoreByHand, "restore a backup by hand with `fixturekit restore FILE STORE`"),
        (.initCorpus, "`fixturekit init` writes one; `fixturekit init STORE` also suggests anonymization rules"),
        (.rewriteLock, "fixturekit writes this file: `fixturekit lock` rewrites it from the corpus"),
        (.lockAfterReview, "`fixturekit lock` adds it, once reviewed"),
        (.freezeFixture, "`fixturekit freeze`, or `capture` and `pack`"),
        (.packAgain(folder: "F/1.0.0"), "`fixturekit pack --force F/1.0.0` packs it again, or `fixturekit unpack --force` the archive over it"),
        (.finishReplacement, "`fixturekit lock` finishes it"),
    ]

    @Test func theToolWordsEveryRemedy() {
        for (remedy, text) in Self.wordings {
            #expect(Remedy.commandLine(remedy) == text)
        }
        #expect(FixtureKitError.Term.commandLine(.rawCapture) == "--mode raw")
        // Every case is listed above: a new one needs its wording here.
        let cases = Set(Self.wordings.map { Mirror(reflecting: $0.0).children.first?.label ?? $0.0.description })
        #expect(cases.count == 26, "\(cases.sorted())")
    }

    /// The library's own words name neither an option nor a command, and differ
    /// from the tool's: a remedy the library embeds is the tool's only once installed.
    @Test func theLibraryWordsNoOption() {
        for (remedy, text) in Self.wordings {
            #expect(remedy.description != text)
            #expect(!Self.namesTheTool(remedy.description), "\(remedy.description)")
        }
        #expect(!Self.namesTheTool(FixtureKitError.Term.rawCapture.description))
    }

    /// The line the tool prints for an error with a remedy: the hint in its words.
    @Test func theToolPrintsTheRemedyAsItsHint() {
        _ = Tool.main(["--version"], console: Console(environment: [:]))
        let error = FixtureKitError(what: "capture", path: "F/1.0.0", why: "the file exists", remedy: .replaceExisting)
        #expect(error.description == "capture: F/1.0.0: the file exists (hint: --force replaces it)")
        #expect(error.descriptionWithoutHint == "capture: F/1.0.0: the file exists")
        #expect(error.remedy == .replaceExisting)
        #expect(error == FixtureKitError(what: "capture", path: "F/1.0.0", why: "the file exists", hint: "--force replaces it"))
    }

    /// An option (` --force`, `(--max-size)`, `` `--keep-failed ``) or a command
    /// (`` `fixturekit verify ``) named in text.
    static func namesTheTool(_ text: String) -> Bool {
        text.contains("`fixturekit ") || text.contains(/(^|[\s(`"])--[a-z]/)
    }

    /// No string literal of the library names the tool's options or commands:
    /// those are the tool's words (Sources/fixturekit), reached through remedies.
    /// Doc comments and comments may; CSS custom properties (`--fg: #fff`, `var(--fg)`) are not options.
    @Test func noLibraryStringNamesTheTool() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var offenders: [String] = []
        var scanned = 0
        for target in ["Sources/FixtureKit", "Sources/FixtureKitModels"] {
            let base = root.appendingPathComponent(target)
            let files = try #require(FileManager.default.enumerator(atPath: base.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
            for file in files {
                let lines = try String(contentsOf: base.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                scanned += 1
                for (index, line) in lines.enumerated() {
                    let code = line.drop { $0 == " " }
                    if code.hasPrefix("//") { continue }
                    let text = String(code).replacing(/--[a-z][a-z-]*[:)]/, with: "")
                    if Self.namesTheTool(text) { offenders.append("\(target)/\(file):\(index + 1): \(code)") }
                }
            }
        }
        #expect(scanned > 100)
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
    }

    /// The scan finds what it looks for.
    @Test func theScanCatchesEveryForm() {
        for text in ["hint: \"--force replaces it\"", "(--max-size) only", "`--keep-failed DIR`", "run `fixturekit verify \\(folder)`"] {
            #expect(Self.namesTheTool(text), "\(text)")
        }
        for text in ["the -wal", "fixturekit writes this file", "a-b--c", "--fg: #1f2328".replacing(/--[a-z][a-z-]*[:)]/, with: "")] {
            #expect(!Self.namesTheTool(text), "\(text)")
        }
    }
}
