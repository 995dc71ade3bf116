import FixtureKitSystem
import FixtureKitModels

extension MigrationRunner {
    /// Bytes written into the temporary folder to see that it takes them.
    static let probeSize = 64 << 10

    /// Checks, before the matrix runs, that the temporary folder (`TMPDIR`, else
    /// `/tmp`) is there and takes a file: a folder that is missing, read-only or
    /// full is the machine's failure, which `migrate` reports as such (exit
    /// status 2) instead of failing every path as if the migration had.
    /// - Throws: ``FixtureKitError`` saying what is wrong with it.
    public static func checkTemporaryFolder() throws(FixtureKitError) {
        let base = ScratchFolder.systemFolder
        let hint = "set TMPDIR to a folder with room for a copy of each fixture"
        do throws(FileSystemError) {
            let scratch = try ScratchFolder()
            let probe = scratch.path.appendingPath("probe")
            try FileDescriptor.open(probe, .writeOnly, options: .exclusiveCreate).closeAfter { fd throws(FileSystemError) in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: probeSize, alignment: 16)
                defer { buffer.deallocate() }
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                try fd.writeAll(UnsafeRawBufferPointer(buffer))
                try fd.sync()
            }
        } catch {
            throw FixtureKitError(what: "migrate: temporary folder", path: base, why: "\(error.operation): \(error.reason)", hint: hint, cause: error)
        }
        if ScratchFolder.isFull() {
            throw FixtureKitError(what: "migrate: temporary folder", path: base, why: "full: less than \(ByteCount.describe(ScratchFolder.fullBelow)) free", hint: hint)
        }
    }

    /// Checks, before the matrix runs, that a report in `format` can be written
    /// at `path` (``MigrationReport/write(_:to:configuration:)``): its temporary
    /// file is created and removed again.
    /// - Throws: ``FixtureKitError`` (exit status 2), worded as the late failure would be
    ///   (`write JUnit report: open: ...`), with the hint that nothing was run.
    public static func checkReportFile(_ path: String, format: MigrationReport.Format) throws(FixtureKitError) {
        let temporary = AtomicFile.temporaryPath(for: path)
        do throws(FileSystemError) {
            try FileDescriptor.open(temporary, .writeOnly, options: [.create, .truncate, .noFollow]).closeAfter { _ in }
            try POSIX.unlinkIfPresent(temporary)
        } catch {
            throw FixtureKitError(what: format.writing, failed: error, hint: "nothing was run")
        }
    }
}
