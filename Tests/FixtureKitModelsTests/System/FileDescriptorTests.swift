import Foundation
import Glibc
import Testing
@testable import FixtureKitSystem

/// ``FileDescriptor``: typed errno errors naming the path, short writes seen
/// and reported, the descriptor closed on every path of ``FileDescriptor/closeAfter(_:)``.
@Suite struct FileDescriptorTests {
    struct Stop: Error {}

    /// Whether descriptor `number` still names the file at `path`. Another test
    /// may get the same number once it is closed, but never for this file.
    func isOpen(_ number: Int32, on path: String) -> Bool {
        var target = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/fd/\(number)", &target, target.count - 1)
        guard count > 0 else { return false }
        return String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path
    }

    /// A file with `bytes` in a fresh folder, and the folder (kept alive by the caller).
    func file(_ bytes: [UInt8]) throws -> (ScratchFolder, String) {
        let folder = try ScratchFolder(prefix: "fixturekit-fd-test")
        let path = folder.path.appendingPath("file")
        try AtomicFile.write(bytes, to: path)
        return (folder, path)
    }

    /// No descriptor that is not open is closed and used here: the tests run in
    /// parallel, and another one may be given the same number at once. A number
    /// past any the process can hold is never open.
    @Test(arguments: [Int32.max, -1])
    func aDescriptorThatIsNotOpenFailsEveryCallWithBadFileDescriptorNamingItsPath(number: Int32) throws {
        let (folder, path) = try file([1, 2, 3])
        _ = folder
        let fd = FileDescriptor(rawValue: number, path: path)
        var buffer = [UInt8](repeating: 0, count: 8)
        let failures: [(String, () throws -> Void)] = [
            ("read", { _ = try buffer.withUnsafeMutableBytes { raw in try fd.read(into: raw) } }),
            ("read", { _ = try buffer.withUnsafeMutableBytes { raw in try fd.read(fromAbsoluteOffset: 1, into: raw) } }),
            ("write", { try fd.writeAll([9]) }),
            ("write", { _ = try [UInt8(9)].withUnsafeBytes { raw in try fd.write(raw) } }),
            ("write", { try [UInt8(9)].withUnsafeBytes { raw in try fd.writeAll(toAbsoluteOffset: 0, raw) } }),
            ("fsync", { try fd.sync() }),
            ("stat", { _ = try fd.status() }),
            ("truncate", { try fd.truncate(to: 0) }),
            ("chmod", { try fd.setPermissions(0o600) }),
            ("close", { try fd.close() }),
        ]
        for (operation, call) in failures {
            #expect(throws: FileSystemError(operation, path: path, errno: EBADF)) { try call() }
        }
        let error = FileSystemError("close", path: path, errno: EBADF)
        #expect(error.code == .badFileDescriptor)
        #expect(error.description == "close: \(path): bad file descriptor")
        #expect(try POSIX.readFile(path) == [1, 2, 3])
    }

    /// `F_GETPIPE_SZ` from `<fcntl.h>` (behind `_GNU_SOURCE`, which Swift's Glibc module does not define).
    static let getPipeSize: Int32 = 1032

    /// The bytes a pipe's reader finds, read until it is empty.
    func drain(_ reader: FileDescriptor) -> [UInt8] {
        _ = fcntl(reader.rawValue, F_SETFL, fcntl(reader.rawValue, F_GETFL) | O_NONBLOCK)
        var drained: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while let count = try? chunk.withUnsafeMutableBytes({ raw in try reader.read(into: raw) }), count > 0 {
            drained += chunk[0..<count]
        }
        return drained
    }

    @Test(arguments: [1, 4095, 4096, 65_537, 1 << 20])
    func aWriteToAFullPipeIsShortThenFailsWithWouldBlock(beyond: Int) throws {
        let (reader, writer) = try FileDescriptor.pipe()
        defer { try? reader.close(); try? writer.close() }
        _ = fcntl(writer.rawValue, F_SETFL, fcntl(writer.rawValue, F_GETFL) | O_NONBLOCK)
        let capacity = Int(fcntl(writer.rawValue, Self.getPipeSize))
        #expect(capacity >= 4096)
        let bytes = (0..<(capacity + beyond)).map { UInt8(truncatingIfNeeded: $0 * 7) }

        // One write: the kernel takes what fits, and the count says so.
        let written = try bytes.withUnsafeBytes { raw in try writer.write(raw) }
        #expect(written == capacity)
        // The pipe is full: a write takes nothing, and says why.
        #expect(throws: FileSystemError("write", path: "pipe", errno: EAGAIN)) { try writer.writeAll([1]) }
        #expect(drain(reader) == Array(bytes[0..<capacity]))

        // All of it: short, then the typed errno; what went before is in the pipe, in order.
        do {
            try writer.writeAll(bytes)
            Issue.record("a pipe of \(capacity) bytes took \(bytes.count)")
        } catch {
            #expect(error.code == .wouldBlock)
            #expect(error.description == "write: pipe: resource temporarily unavailable")
        }
        #expect(drain(reader) == Array(bytes[0..<capacity]))
    }

    @Test(arguments: [1, 4096, 1 << 20])
    func aWriteToAFullDiskFailsWithNoSpace(size: Int) throws {
        let full = try FileDescriptor.open("/dev/full", .writeOnly)
        full.closeAfter { fd in
            #expect(throws: FileSystemError("write", path: "/dev/full", errno: ENOSPC)) { try fd.writeAll([UInt8](repeating: 0, count: size)) }
            #expect(throws: FileSystemError("write", path: "/dev/full", errno: ENOSPC)) {
                try [UInt8](repeating: 0, count: size).withUnsafeBytes { raw in _ = try fd.write(raw) }
            }
        }
        #expect(FileSystemError("write", path: "/dev/full", errno: ENOSPC).code == .noSpace)
    }

    @Test func closeAfterClosesWhenTheBodyReturnsAndWhenItThrows() throws {
        let (folder, path) = try file([1, 2, 3, 4, 5])
        _ = folder
        var number: Int32 = -1
        let read = try FileDescriptor.open(path, .readOnly).closeAfter { fd -> [UInt8] in
            number = fd.rawValue
            #expect(isOpen(number, on: path))
            var buffer = [UInt8](repeating: 0, count: 8)
            let count = try buffer.withUnsafeMutableBytes { raw in try fd.readFully(into: raw) }
            return Array(buffer[0..<count])
        }
        #expect(read == [1, 2, 3, 4, 5])
        #expect(!isOpen(number, on: path))

        #expect(throws: Stop.self) {
            try FileDescriptor.open(path, .readOnly).closeAfter { fd throws(Stop) in
                number = fd.rawValue
                #expect(isOpen(number, on: path))
                throw Stop()
            }
        }
        #expect(!isOpen(number, on: path))

        // A failure of the descriptor's own, thrown from inside, closes it too.
        #expect(throws: FileSystemError("write", path: path, errno: EBADF)) {
            try FileDescriptor.open(path, .readOnly).closeAfter { fd throws(FileSystemError) in
                number = fd.rawValue
                try fd.writeAll([1])
            }
        }
        #expect(!isOpen(number, on: path))
    }

    @Test func openReportsTheTypedErrnoOfEachRefusal() throws {
        let (folder, path) = try file([1])
        let link = folder.path.appendingPath("link")
        #expect(symlink(path, link) == 0)
        let missing = folder.path.appendingPath("missing")
        #expect(throws: FileSystemError("open", path: missing, errno: ENOENT)) { try FileDescriptor.open(missing, .readOnly) }
        #expect(throws: FileSystemError("open", path: path, errno: EEXIST)) { try FileDescriptor.open(path, .writeOnly, options: .exclusiveCreate) }
        #expect(throws: FileSystemError("open", path: link, errno: ELOOP)) { try FileDescriptor.open(link, .readOnly, options: .noFollow) }
        #expect(throws: FileSystemError("open", path: path, errno: ENOTDIR)) { try FileDescriptor.open(path, .readOnly, options: .directory) }
        for (errno, code) in [(ENOENT, Errno.noSuchFileOrDirectory), (EEXIST, .fileExists), (ELOOP, .tooManySymbolicLinkLevels), (ENOTDIR, .notDirectory)] {
            #expect(FileSystemError("open", path: path, errno: errno).code == code)
        }
    }

    @Test func readsAndWritesAtOffsetsAndReadsFullyToTheEnd() throws {
        let (folder, _) = try file([])
        let path = folder.path.appendingPath("new")
        try FileDescriptor.open(path, .readWrite, options: [.exclusiveCreate, .noFollow], permissions: 0o600).closeAfter { fd throws in
            try fd.writeAll(Array(0..<100 as Range<UInt8>))
            try [UInt8](repeating: 0xFF, count: 10).withUnsafeBytes { raw in try fd.writeAll(toAbsoluteOffset: 95, raw) }
            try fd.sync()
            #expect(try fd.status().size == 105)
            #expect(try fd.status().kind == .regular)
            var tail = [UInt8](repeating: 0, count: 20)
            let count = try tail.withUnsafeMutableBytes { raw in try fd.read(fromAbsoluteOffset: 90, into: raw) }
            #expect(Array(tail[0..<count]) == [90, 91, 92, 93, 94] + [UInt8](repeating: 0xFF, count: 10))
            try fd.truncate(to: 3)
            try fd.setPermissions(0o640)
            #expect(try fd.status().permissions == 0o640)
        }
        try FileDescriptor.open(path, .readOnly).closeAfter { fd throws in
            var buffer = [UInt8](repeating: 9, count: 16)
            #expect(try buffer.withUnsafeMutableBytes { raw in try fd.readFully(into: raw) } == 3)
            #expect(Array(buffer[0..<3]) == [0, 1, 2])
            #expect(try buffer.withUnsafeMutableBytes { raw in try fd.read(into: raw) } == 0)
        }
    }
}
