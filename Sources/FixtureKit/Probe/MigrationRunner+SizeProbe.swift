import Foundation
import FixtureKitSystem
import FixtureKitSQLite
import FixtureKitModels

/// The `size` probe: the path's stages timed on copies of the source fixture
/// grown ×1, ×2, ×4 and ×8 (``StoreGrowth``), the growth exponent of each
/// stage fitted, and the path's time predicted at the size the configuration
/// declares (``SizeProbeSettings``).
extension MigrationRunner {
    /// What one stage cost at one size: its wall time, and its SQL's
    /// virtual-machine steps (`nil` for a program or Swift stage).
    struct StageCost {
        var seconds: Double
        var steps: Int?
    }

    /// What the grown copies of a path's source need on disk: the ×8 copy, and
    /// as much again for the stages' journal and rebuilt tables.
    static func sizeProbeSpace(fixtureBytes: UInt64) -> UInt64 {
        let (needed, overflow) = fixtureBytes.multipliedReportingOverflow(by: UInt64(2 * (SizeProbeSettings.factors.max() ?? 8)))
        return overflow ? .max : needed
    }

    /// The runs of each size when the path has a program stage, the shortest time kept.
    static let programRuns = 2

    func probeSize(_ path: MigrationPath, cancellation: Cancellation?) -> CheckResult {
        let kind = CheckKind.probe(kind: ProbeKind.size.rawValue)
        let settings = configuration.probeSize
        let source = fixture(path.source)
        guard let original = source.copy else {
            return CheckResult(kind, passed: false, message: "could not run\nno copy of fixture \(path.source) to grow")
        }
        if let refusal = sizeRefusal(source.folder, fixture: configuration.resolve(path.source), settings: settings) { return refusal }
        var costs: [[StageCost]] = []
        var growth = StoreGrowth.Outcome()
        // A program's exponent is by wall time, which the machine's load disturbs:
        // each size is run twice and the shorter time of each stage kept.
        let runs = path.stages.contains { $0.exec != nil } ? Self.programRuns : 1
        for factor in SizeProbeSettings.factors {
            var best: [StageCost]?
            for _ in 0..<runs {
                if let reason = cancellation?.reason { return CheckResult(kind, passed: false, message: "not run: \(reason)") }
                switch sizedRun(path, factor: factor, original: original, cancellation: cancellation) {
                case .success(let (stages, grown)):
                    best = best.map { zip($0, stages).map { StageCost(seconds: min($0.seconds, $1.seconds), steps: $1.steps) } } ?? stages
                    if factor == SizeProbeSettings.factors.last { growth = grown }
                case .failure(let failure):
                    var result = CheckResult(kind, passed: false, message: "at ×\(factor): \(failure.message)", error: failure.error)
                    result.findings = [CheckResult.Finding(message: "at ×\(factor): \(failure.message)")]
                    return result
                }
            }
            costs.append(best ?? [])
        }
        return sizeVerdict(path, costs: costs, growth: growth, rows: source.contents?.tables ?? [:])
    }

    /// Why a sized run could not be made or failed: in the report's words, and the machine's error.
    struct SizedRunFailure: Error {
        var message: String
        var error: (any Error)?
    }

    /// The stages run on a fresh copy of the source grown `factor` times, each timed and counted.
    private func sizedRun(_ path: MigrationPath, factor: Int, original: String, cancellation: Cancellation?) -> Result<([StageCost], StoreGrowth.Outcome), SizedRunFailure> {
        let copy: MigrationCopy
        var growth = StoreGrowth.Outcome()
        do {
            copy = try MigrationCopy(fixture: fixture(path.source).folder, store: configuration.store, swiftStages: swiftStages, cancellation: cancellation)
        } catch {
            return .failure(SizedRunFailure(message: "copy fixture \(path.source): \(error.description)", error: error))
        }
        do {
            let database = try copy.open()
            if factor > 1 { growth = try StoreGrowth.grow(database, original: original, factor: factor) }
        } catch {
            let machine = [.full, .ioError, .cantOpen].contains(error.resultCode)
            return .failure(SizedRunFailure(message: "grow the copy: \(error.description)", error: machine ? error : nil))
        }
        var log: [String] = []
        var costs: [StageCost] = []
        let failure: StageRunner.Failure? = ZoneLease.shared.with(configuration.processTimeZone) {
            for stage in path.stages {
                let start = ContinuousClock.now
                if let failure = copy.run(stage, configuration: configuration, log: &log) {
                    var named = failure
                    named.message = "stage \(stage.from) -> \(stage.to) fails: " + (failure.message.split(separator: "\n").first.map(String.init) ?? failure.message)
                    return named
                }
                costs.append(StageCost(seconds: start.secondsSince, steps: copy.stages.stepsCounted))
            }
            return nil
        }
        if let failure { return .failure(SizedRunFailure(message: failure.message, error: failure.machineError)) }
        return .success((costs, growth))
    }

    /// One line when the grown copies cannot be made: they need more than
    /// `"disk"` allows, or than the temporary folder has free.
    /// - Parameter fixture: the fixture's folder as the configuration names it,
    ///   where a test injects the free space (``FaultInjection/report(space:for:)``).
    private func sizeRefusal(_ folder: String, fixture: String, settings: SizeProbeSettings) -> CheckResult? {
        let kind = CheckKind.probe(kind: ProbeKind.size.rawValue)
        let bytes = ((try? FolderListing.items(below: folder)) ?? []).reduce(UInt64(0)) { total, item in
            if case .file(let size) = item.kind { return total + size }
            return total
        }
        let needed = Self.sizeProbeSpace(fixtureBytes: bytes)
        let temporary = ScratchFolder.systemFolder
        let how = "the ×\(SizeProbeSettings.factors.max() ?? 8) copy of a \(Self.bytes(bytes)) fixture, and as much again for the stages: \(Self.bytes(needed))"
        if needed > settings.diskBytes {
            let message = "cannot grow the copies: they need more than \"disk\" allows (\(Self.bytes(settings.diskBytes))): \(how)"
            return CheckResult(kind, passed: false, message: message, error: FileSystemError("grow copies", path: temporary, message: message))
        }
        let available: UInt64
        if let injected = FaultInjection.injectedSpace(fixture) {
            available = injected
        } else {
            do throws(FileSystemError) { available = try POSIX.availableSpace(at: temporary) } catch {
                return CheckResult(kind, passed: false, message: "cannot grow the copies: \(error.description)", error: error)
            }
        }
        guard needed > available else { return nil }
        let message = "cannot grow the copies: \(temporary) has \(Self.bytes(available)) free, they need \(how)"
        return CheckResult(kind, passed: false, message: message, error: FileSystemError("grow copies", path: temporary, errno: Errno.noSpace.rawValue))
    }

    /// `512 bytes`, `3.2 MiB`.
    static func bytes(_ count: UInt64) -> String {
        guard count >= 1024 else { return "\(count) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        var value = Double(count) / 1024, unit = 0
        while value >= 1024, unit < units.count - 1 { (value, unit) = (value / 1024, unit + 1) }
        return String(format: "%.1f", value) + " " + units[unit]
    }
}
