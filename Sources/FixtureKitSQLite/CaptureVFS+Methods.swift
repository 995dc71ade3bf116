#if canImport(Glibc)
import Glibc
#endif
import CSQLite

/// The `sqlite3_io_methods` of ``CaptureVFS``'s files: each call goes to the
/// default VFS's file, after what the file's role adds (see ``CaptureVFS``).
/// C function pointers cannot capture: each finds its ``ShimFile`` from the
/// `sqlite3_file` SQLite passes.
extension ShimFile {
    nonisolated(unsafe) static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods(
            iVersion: 3,
            xClose: { file in
                let shim = ShimFile.of(file)
                _ = shim.role.sink?.flush()
                let gathered = shim.writeGathered()
                let code = shim.methods.xClose?(shim.inner) ?? SQLITE_OK
                shim.role.sink?.detach()
                Unmanaged.passUnretained(shim).release()
                file?.pointee.pMethods = nil
                return gathered != SQLITE_OK ? gathered : code
            },
            xRead: { file, buffer, amount, offset in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.flush(), code != SQLITE_OK { return code }
                let code: Int32
                if let readAhead = shim.readAhead, let buffer {
                    code = readAhead.read(into: buffer, count: Int(amount), offset: offset, from: shim.inner) { shim.writeGathered(overlapping: ($0, $1)) }
                } else {
                    code = shim.methods.xRead!(shim.inner, buffer, amount, offset)
                }
                if code == SQLITE_OK, let buffer, shim.role.pages != nil { shim.observe(buffer, count: Int(amount), offset: offset) }
                return code
            },
            xWrite: { file, buffer, amount, offset in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, let buffer { return sink.write(buffer, count: Int(amount), offset: offset) }
                shim.readAhead?.forget(offset, count: Int(amount))
                if let gather = shim.role.gather, let buffer { return gather.write(buffer, count: Int(amount), offset: offset, to: shim.inner) }
                return shim.methods.xWrite!(shim.inner, buffer, amount, offset)
            },
            xTruncate: { file, size in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.truncate(to: size), code != SQLITE_OK { return code }
                if case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                shim.readAhead?.forget()
                return shim.methods.xTruncate!(shim.inner, size)
            },
            xSync: { file, flags in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.flush(), code != SQLITE_OK { return code }
                if case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                return shim.methods.xSync!(shim.inner, flags)
            },
            xFileSize: { file, size in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.flush(), code != SQLITE_OK { return code }
                if case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                return shim.methods.xFileSize!(shim.inner, size)
            },
            xLock: { file, level in
                let shim = ShimFile.of(file)
                _ = shim.role.sink?.quiesce()
                shim.readAhead?.forget()
                if case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                if shim.role.isAtRest {
                    // Every level is the shared lock, taken once.
                    guard !shim.holdsSharedLock else { return SQLITE_OK }
                    let code = shim.methods.xLock!(shim.inner, SQLITE_LOCK_SHARED)
                    shim.holdsSharedLock = code == SQLITE_OK
                    return code
                }
                return shim.methods.xLock!(shim.inner, level)
            },
            xUnlock: { file, level in
                let shim = ShimFile.of(file)
                _ = shim.role.sink?.quiesce()
                shim.readAhead?.forget()
                // The lock goes whether or not what was gathered could be written.
                let gathered = shim.writeGathered()
                if shim.role.isAtRest {
                    guard level == SQLITE_LOCK_NONE, shim.holdsSharedLock else { return gathered }
                    shim.holdsSharedLock = false
                }
                let code = shim.methods.xUnlock!(shim.inner, level)
                return gathered != SQLITE_OK ? gathered : code
            },
            xCheckReservedLock: { file, result in
                let shim = ShimFile.of(file)
                _ = shim.role.sink?.quiesce()
                if case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                return shim.methods.xCheckReservedLock!(shim.inner, result)
            },
            xFileControl: { file, operation, argument in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.flush(), code != SQLITE_OK { return code }
                // A size hint is about the file's room, not its bytes.
                if operation != SQLITE_FCNTL_SIZE_HINT, case let code = shim.writeGathered(), code != SQLITE_OK { return code }
                return shim.methods.xFileControl!(shim.inner, operation, argument)
            },
            xSectorSize: { file in
                let shim = ShimFile.of(file)
                return shim.methods.xSectorSize!(shim.inner)
            },
            xDeviceCharacteristics: { file in
                let shim = ShimFile.of(file)
                return shim.methods.xDeviceCharacteristics!(shim.inner)
            },
            xShmMap: { file, index, size, extend, pointer in
                let shim = ShimFile.of(file)
                guard !shim.role.isAtRest, shim.methods.iVersion >= 2, let map = shim.methods.xShmMap else { return CaptureVFS.ioErrorMapping }
                return map(shim.inner, index, size, extend, pointer)
            },
            xShmLock: { file, offset, count, flags in
                let shim = ShimFile.of(file)
                shim.readAhead?.forget()
                return shim.methods.xShmLock!(shim.inner, offset, count, flags)
            },
            xShmBarrier: { file in
                let shim = ShimFile.of(file)
                shim.methods.xShmBarrier?(shim.inner)
            },
            xShmUnmap: { file, delete in
                let shim = ShimFile.of(file)
                return shim.methods.xShmUnmap?(shim.inner, delete) ?? SQLITE_OK
            },
            xFetch: { file, offset, amount, pointer in
                let shim = ShimFile.of(file)
                if let sink = shim.role.sink, case let code = sink.flush(), code != SQLITE_OK { return code }
                if case let code = shim.writeGathered(overlapping: (offset, Int(amount))), code != SQLITE_OK { return code }
                guard shim.methods.iVersion >= 3, let fetch = shim.methods.xFetch else {
                    pointer?.pointee = nil
                    return SQLITE_OK
                }
                return fetch(shim.inner, offset, amount, pointer)
            },
            xUnfetch: { file, offset, pointer in
                let shim = ShimFile.of(file)
                guard shim.methods.iVersion >= 3, let unfetch = shim.methods.xUnfetch else { return SQLITE_OK }
                return unfetch(shim.inner, offset, pointer)
            }))
        return methods
    }()
}
