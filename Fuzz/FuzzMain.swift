// The libFuzzer entry point: built only by `make fuzz` (scripts/fuzz.sh), over
// the library's modules built with the fuzzer's instrumentation. The target is chosen by the
// environment variable FIXTUREKIT_FUZZ_TARGET: wal, sums, config or archive.
#if canImport(Glibc)
import Glibc
#endif
import FixtureKit

nonisolated(unsafe) let fuzzTarget: String = getenv("FIXTUREKIT_FUZZ_TARGET").map { String(cString: $0) } ?? "wal"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    FuzzTargets.run(fuzzTarget, Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
