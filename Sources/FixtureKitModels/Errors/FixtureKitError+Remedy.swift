import Synchronization

extension FixtureKitError {
    /// What the user can do about a failure, as a value: the facts it needs (a
    /// store's path, a folder) and no wording of the tool's.
    ///
    /// The library words a remedy in its own terms (``description``). The tool
    /// words it as commands and options to type, and installs that wording with
    /// `useWording(_:terms:)` so that the hints, reports and status lines the library
    /// writes for it read the same as the line the tool prints.
    public enum Remedy: Sendable, Equatable, CustomStringConvertible {
        /// Replace the file that exists (forcing).
        case replaceExisting
        /// Replace a locked fixture, and its line in fixturekit.lock (forcing).
        case replaceLockedFixture
        /// Write to another file than the one named.
        case chooseAnotherOutput
        /// Capture a snapshot instead, or declare the store synthetic (no anonymization).
        case snapshotOrSynthetic
        /// Close the app that writes the store, or capture a snapshot instead.
        case closeAppOrSnapshot
        /// Name anonymization rules in the corpus configuration, or declare the store synthetic.
        case rulesOrSynthetic
        /// A leak in a page of no table: keep the rejected output to look at it.
        case keepRejectedOutput
        /// Free some space, or keep the backups in another folder.
        case freeSpaceOrMoveBackups
        /// Raise an archive limit, for an archive the user trusts.
        case raiseLimit(ArchiveLimit)
        /// Unpack into a new folder, or replace the fixture folder (forcing).
        case unpackIntoNewFolder
        /// Finish the upgrade or restore that the marker of the store at `store` records.
        case finishPendingRestore(store: String, PendingRestore)
        /// Verify the fixture folder `folder` deeply; nothing was changed.
        case verifyDeep(folder: String)
        /// Verify `path` to see every problem, saying first that nothing was changed when so.
        case verify(path: String, nothingChanged: Bool)
        /// Verify the fixture folder `folder`.
        case runVerify(folder: String)
        /// Verify the corpus against its lock; nothing was changed.
        case verifyAgainstLock
        /// Write the SHA256SUMS of `folder`.
        case writeSums(folder: String)
        /// Pack the fixture again: packing writes SHA256SUMS as the archive's first entry.
        case packWritesSumsFirst
        /// Pack the fixture again: packing writes the archive's `.sha256` file.
        case packWritesChecksumFile
        /// Remove a -wal or -shm that a reader left, and read fixtures without opening them in place.
        case removeReaderLeftover
        /// Restore a backup archive by hand.
        case restoreByHand
        /// Write a corpus configuration (and have anonymization rules suggested).
        case initCorpus
        /// Rewrite fixturekit.lock from the corpus.
        case rewriteLock
        /// Lock what is not locked, once reviewed.
        case lockAfterReview
        /// Freeze the missing fixture (or capture and pack it).
        case freezeFixture
        /// Pack the fixture folder `folder` again over its archive, or unpack the archive over it.
        case packAgain(folder: String)
        /// Finish the replacement of a fixture, its archives and its lock lines that a killed run decided.
        case finishReplacement

        /// The limits an archive is read under.
        public enum ArchiveLimit: Sendable, Equatable {
            /// The bytes the archive may expand to.
            case size
            /// How many times larger than the archive its contents may be.
            case ratio
        }

        /// Where a pending upgrade or restore stands.
        public enum PendingRestore: Sendable, Equatable {
            /// The migration passed: finishing checks it again and keeps it.
            case keepsMigration
            /// The restore could not start: finishing restores the backup once that is fixed.
            case restoresOnceFixed
            /// Another process has the store open: close it, then finish the restore.
            case restoresAfterClosingApp
            /// The restore failed half-way: finishing restores again once that is fixed.
            case finishesOnceFixed
            /// The backup was restored but the marker stays: finishing restores it again.
            case restoresAgain
            /// The store set could not be replaced: finishing finishes the restore.
            case finishes
        }

        /// The remedy in the library's words.
        public var description: String {
            switch self {
            case .replaceExisting: "the existing file can be replaced (force)"
            case .replaceLockedFixture: "the fixture and its lock line can be rewritten (force)"
            case .chooseAnotherOutput: "name another output file"
            case .snapshotOrSynthetic: "capture a snapshot, or declare the store synthetic if it holds synthetic data only"
            case .closeAppOrSnapshot: "close the app that uses the store, or capture a snapshot"
            case .rulesOrSynthetic: "name a rules file in \"anonymize\", or declare the store synthetic, or \"anonymize\": false for the whole corpus"
            case .keepRejectedOutput: "a page of no table holds it; keep the rejected output for a look"
            case .freeSpaceOrMoveBackups: "free some space, or put the backups on another disk"
            case .raiseLimit(.size): "raise the size limit only for an archive you trust"
            case .raiseLimit(.ratio): "raise the ratio limit only for an archive you trust"
            case .unpackIntoNewFolder: "a fixture folder is history: unpack into a new folder, or replace it (force)"
            case .finishPendingRestore(let store, let step):
                switch step {
                case .keepsMigration: "the marker stays: finishing the pending upgrade of \(store) checks the migration again and keeps it"
                case .restoresOnceFixed: "the marker stays: finishing the pending restore of \(store) restores the backup once that is fixed"
                case .restoresAfterClosingApp: "close the app that uses the store, then finishing the pending restore of \(store) restores it"
                case .finishesOnceFixed: "the store set may be half-restored; the marker stays: finishing the pending restore of \(store) finishes it once that is fixed"
                case .restoresAgain: "the marker stays: finishing the pending restore of \(store) restores the backup again"
                case .finishes: "the marker stays: finishing the pending restore of \(store) finishes it"
                }
            case .verifyDeep(let folder): "nothing was changed; a deep verification of \(folder) checks the fixture"
            case .verify(let path, let nothingChanged): (nothingChanged ? "nothing was changed; " : "") + "verifying \(path) lists every problem"
            case .runVerify(let folder): "verify \(folder)"
            case .verifyAgainstLock: "nothing was changed; verifying the corpus lists every difference from the lock"
            case .writeSums(let folder): "write the SHA256SUMS of \(folder)"
            case .packWritesSumsFirst: "packing writes it first"
            case .packWritesChecksumFile: "packing writes it"
            case .removeReaderLeftover: "remove it, it holds nothing; read a fixture without opening it in place"
            case .restoreByHand: "restore a backup by hand"
            case .initCorpus: "initializing the corpus writes one, and can suggest anonymization rules"
            case .rewriteLock: "fixturekit writes this file: locking rewrites it from the corpus"
            case .lockAfterReview: "locking adds it, once reviewed"
            case .freezeFixture: "freeze it, or capture and pack it"
            case .packAgain(let folder): "pack \(folder) again over its archive, or unpack the archive over it"
            case .finishReplacement: "locking the corpus finishes it"
            }
        }

        /// The remedy as the user reads it: in the installed wording, else the library's.
        package var text: String { Wording.current.remedy?(self) ?? description }

        /// Words every remedy and term the library puts into text from now on:
        /// the tool's words (the commands and options to type).
        package static func useWording(_ remedy: @escaping @Sendable (Remedy) -> String, terms: @escaping @Sendable (Term) -> String) {
            Wording.installed.withLock { $0 = Wording(remedy: remedy, term: terms) }
        }
    }

    /// A setting of the library that a message names, worded by the front end
    /// like a ``Remedy``: the tool names its option.
    public enum Term: Sendable, Equatable, CustomStringConvertible {
        /// A capture that copies the store set as it is, its -wal included.
        case rawCapture

        /// The term in the library's words.
        public var description: String {
            switch self {
            case .rawCapture: "a raw capture"
            }
        }

        /// The term as the user reads it: in the installed wording, else the library's.
        package var text: String { Wording.current.term?(self) ?? description }
    }

    /// How remedies and terms read in the text the library writes for the user:
    /// the library's words unless a front end installed its own.
    private struct Wording: Sendable {
        var remedy: (@Sendable (Remedy) -> String)?
        var term: (@Sendable (Term) -> String)?

        static let installed = Mutex(Wording())
        static var current: Wording { installed.withLock { $0 } }
    }
}
