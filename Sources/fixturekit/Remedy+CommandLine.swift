import FixtureKit

extension FixtureKitError.Remedy {
    /// The remedy in the tool's words: the command or option that does it.
    /// Every hint that names one of them is written here, and only here.
    static func commandLine(_ remedy: FixtureKitError.Remedy) -> String {
        switch remedy {
        case .replaceExisting: "--force replaces it"
        case .replaceLockedFixture: "--force rewrites it and its lock line"
        case .chooseAnotherOutput: "name another file with --output"
        case .snapshotOrSynthetic: "capture with --mode snapshot, or --no-anonymize for a store that holds synthetic data only"
        case .closeAppOrSnapshot: "close the app that uses the store, or capture with --mode snapshot"
        case .rulesOrSynthetic: "name a rules file in \"anonymize\", or declare the store synthetic: --no-anonymize, or \"anonymize\": false for the whole corpus"
        case .keepRejectedOutput: "a page of no table holds it; `--keep-failed DIR` keeps the output for a look"
        case .freeSpaceOrMoveBackups: "free some space, or put the backups on another disk with --backups DIR"
        case .raiseLimit(.size): "raise the limit (--max-size) only for an archive you trust"
        case .raiseLimit(.ratio): "raise the limit (--max-ratio) only for an archive you trust"
        case .unpackIntoNewFolder: "a fixture folder is history: unpack into a new folder, or pass --force to replace it"
        case .finishPendingRestore(let store, let step):
            switch step {
            case .keepsMigration: "the marker stays: `fixturekit restore --pending \(store)` checks the migration again and keeps it"
            case .restoresOnceFixed: "the marker stays: `fixturekit restore --pending \(store)` restores the backup once that is fixed"
            case .restoresAfterClosingApp: "close the app that uses the store, then `fixturekit restore --pending \(store)` restores it"
            case .finishesOnceFixed: "the store set may be half-restored; the marker stays: `fixturekit restore --pending \(store)` finishes the restore once that is fixed"
            case .restoresAgain: "the marker stays: `fixturekit restore --pending \(store)` restores the backup again"
            case .finishes: "the marker stays: `fixturekit restore --pending \(store)` finishes the restore"
            }
        case .verifyDeep(let folder): "nothing was changed; `fixturekit verify --deep \(folder)` checks the fixture"
        case .verify(let path, let nothingChanged): (nothingChanged ? "nothing was changed; " : "") + "`fixturekit verify \(path)` lists every problem"
        case .runVerify(let folder): "run `fixturekit verify \(folder)`"
        case .verifyAgainstLock: "nothing was changed; `fixturekit verify` lists every difference from the lock"
        case .writeSums(let folder): "write one with `fixturekit sums \(folder)`"
        case .packWritesSumsFirst: "`fixturekit pack` writes it first"
        case .packWritesChecksumFile: "`fixturekit pack` writes it"
        case .removeReaderLeftover: "remove it, it holds nothing; `fixturekit sql` looks at a fixture without touching it"
        case .restoreByHand: "restore a backup by hand with `fixturekit restore FILE STORE`"
        case .initCorpus: "`fixturekit init` writes one; `fixturekit init STORE` also suggests anonymization rules"
        case .rewriteLock: "fixturekit writes this file: `fixturekit lock` rewrites it from the corpus"
        case .lockAfterReview: "`fixturekit lock` adds it, once reviewed"
        case .freezeFixture: "`fixturekit freeze`, or `capture` and `pack`"
        case .packAgain(let folder): "`fixturekit pack --force \(folder)` packs it again, or `fixturekit unpack --force` the archive over it"
        case .finishReplacement: "`fixturekit lock` finishes it"
        }
    }
}

extension FixtureKitError.Term {
    /// The term in the tool's words: the option that sets it.
    static func commandLine(_ term: FixtureKitError.Term) -> String {
        switch term {
        case .rawCapture: "--mode raw"
        }
    }
}
