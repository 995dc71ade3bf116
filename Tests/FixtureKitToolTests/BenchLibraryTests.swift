import Foundation
import Testing
@testable import FixtureKitTestSupport

/// bench/lib.sh, which every benchmark's verdict goes through: the interleaved
/// rounds it asks hyperfine for, and the per-command figures it makes of them.
/// hyperfine itself is replaced by a shell function that records its arguments.
@Suite struct BenchLibraryTests {
    /// Runs `program` in bash after sourcing bench/lib.sh, `results` a fresh folder.
    func bash(_ program: String) throws -> (result: RunResult, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        let library = repositoryRoot.appendingPathComponent("bench/lib.sh").path
        let script = "set -euo pipefail; source '\(library)'; results='\(folder.path)'; \(program)"
        return (try run(["bash", "-c", script], in: folder.path), folder)
    }

    @Test func summarizeRoundsSkipsWarmUpsAndKeepsEachCommandsColumns() throws {
        // Three rounds of two commands, the first a warm-up: only rounds 2 and 3 count.
        let csv = """
            command,mean,stddev,median,user,system,min,max
            "a, with a comma",9,0,9,9,9,9,9
            b,9,0,9,9,9,9,9
            "a, with a comma",1.0,0,1.0,0.5,0.25,1.0,1.0
            b,2.0,0,2.0,1.5,0.5,2.0,2.0
            "a, with a comma",3.0,0,3.0,0.75,0.25,3.0,3.0
            b,2.0,0,2.0,0.5,0.5,2.0,2.0

            """
        let (result, _) = try bash("printf '%s' '\(csv)' >rounds.csv; summarize_rounds rounds.csv 2 1 'a, with a comma' b")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == """
            command,mean,stddev,median,user,system,min,max
            a; with a comma,2.000000,1.414214,2.000000,0.625000,0.250000,1.000000,3.000000
            b,2.000000,0.000000,2.000000,1.000000,0.500000,2.000000,2.000000

            """)
    }

    @Test func summarizeRoundsTakesTheMiddleOfAnOddCount() throws {
        let rows = ["5", "1", "4", "2", "3"].map { "x,\($0),0,\($0),0,0,\($0),\($0)" }.joined(separator: "\n")
        let (result, _) = try bash("printf 'command,mean,stddev,median,user,system,min,max\\n%s\\n' '\(rows)' >rounds.csv; summarize_rounds rounds.csv 1 0 x")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").last == "x,3.000000,1.581139,3.000000,0.000000,0.000000,1.000000,5.000000")
    }

    /// The fake hyperfine: its arguments one per line in args.txt, and a CSV of
    /// one-second runs for the benchmarks it was given.
    static let fakeHyperfine = """
        hyperfine() {
          printf '%s\\n' "$@" >args.txt
          local csv="" count=0 argument previous=""
          for argument in "$@"; do
            [[ $previous == --export-csv ]] && csv=$argument
            [[ $previous == -n ]] && count=$((count + 1))
            previous=$argument
          done
          { echo command,mean,stddev,median,user,system,min,max
            for ((i = 0; i < count; i++)); do echo "c,1,0,1,0,0,1,1"; done; } >"$csv"
        };
        """

    @Test func runHyperfineInterleavesRoundsAndWarmsMemoryAfterEachPrepare() throws {
        let program = Self.fakeHyperfine + """
            warm_memory_mib=16; run_hyperfine t 1 2 --prepare 'rm -f x' --prepare 'sync' -n A 'run a' -n B 'run b' >/dev/null
            """
        let (result, folder) = try bash(program)
        #expect(result.status == 0, "\(result.standardError)")
        let arguments = try String(contentsOfFile: folder.path + "/args.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        let warm = try bash("warm_memory_command 16").result.standardOutput
        #expect(warm.hasPrefix("python3 -c "))
        let round = ["--prepare", "(rm -f x) && \(warm)", "-n", "A", "run a", "--prepare", "(sync) && \(warm)", "-n", "B", "run b"]
        #expect(Array(arguments.prefix(5)) == ["--shell=bash", "--runs", "1", "--export-json", folder.path + "/t.json"])
        #expect(Array(arguments.dropFirst(7)) == round + round + round)
        let csv = try String(contentsOfFile: folder.path + "/t.csv", encoding: .utf8)
        #expect(csv == "command,mean,stddev,median,user,system,min,max\nA,1.000000,0.000000,1.000000,0.000000,0.000000,1.000000,1.000000\nB,1.000000,0.000000,1.000000,0.000000,0.000000,1.000000,1.000000\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/t-rounds.csv"))
    }

    @Test func warmMemoryCommandRunsInBash() throws {
        let (result, _) = try bash("eval \"$(warm_memory_command 16)\"")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty)
    }

    @Test func runHyperfineWithoutPreparesOrWarmingPassesNoPrepare() throws {
        let (result, folder) = try bash(Self.fakeHyperfine + "run_hyperfine t 0 1 -n A 'run a' -n B 'run b' >/dev/null")
        #expect(result.status == 0, "\(result.standardError)")
        let arguments = try String(contentsOfFile: folder.path + "/args.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(Array(arguments.dropFirst(7)) == ["-n", "A", "run a", "-n", "B", "run b"])
    }

    @Test(arguments: [
        ("run_hyperfine t 0 1 -n A 'run a' 'run b'", "bench: run_hyperfine t: give every command a name (-n)\n"),
        ("run_hyperfine t 0 1 --prepare p --prepare q --prepare r -n A a -n B b", "bench: run_hyperfine t: give --prepare once or once per command\n"),
        ("run_hyperfine t 0 1 --style none -n A a", "bench: run_hyperfine t: option --style is not supported\n"),
    ])
    func runHyperfineRefusesWhatItCannotInterleave(program: String, message: String) throws {
        let (result, folder) = try bash(Self.fakeHyperfine + program)
        #expect(result.status == 2)
        #expect(result.standardError == message)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/args.txt"))
    }
}
