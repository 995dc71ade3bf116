import Foundation
import Testing
@testable import FixtureKit
@testable import FixtureKitTestSupport
@testable import FixtureKitTool

/// The completion scripts for bash, zsh and fish, and the manual page, all from
/// the commands' declarations.
@Suite struct CompletionsTests {
    @Test func bashCompletesCommandsOptionsAndValues() throws {
        let script = fixturekit("completions", "bash").standardOutput
        let folder = try TemporaryFolder()
        let path = try folder.write("fixturekit.bash", script)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = "source '\(path)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _fixturekit; printf '%s\\n' \"${COMPREPLY[@]}\""
            let result = try run(["bash", "-c", program], in: folder.path)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["fixturekit", "fr"]) == ["freeze"])
        #expect(try complete(["fixturekit", "s"]).sorted() == ["sql", "status", "sums"])
        #expect(try complete(["fixturekit", "capture", "--m"]) == ["--mode"])
        #expect(try complete(["fixturekit", "capture", "--mode", "r"]) == ["raw"])
        #expect(try complete(["fixturekit", "completions", "z"]) == ["zsh"])
        #expect(try complete(["fixturekit", "restore", "--p"]) == ["--pending"])
        #expect(try complete(["fixturekit", "verify", "fixturek"]) == ["fixturekit.bash"])
        #expect(try complete(["fixturekit", "migrate", "--shard", ""]) == [])
    }

    @Test func everyDeclarationIsInEveryCompletionScriptAndTheManual() throws {
        let scripts = Shell.allCases.map { fixturekit("completions", $0.rawValue).standardOutput }
        let manual = fixturekit("generate-manual").standardOutput
        for command in Tool.visibleCommands {
            for script in scripts { #expect(script.contains(command.name), "\(command.name)") }
            #expect(manual.contains(".SS \(command.name)\n"))
            for option in command.allOptions {
                #expect(scripts[0].contains(option.name), "bash: \(command.name) \(option.name)")
                #expect(scripts[1].contains(option.name), "zsh: \(command.name) \(option.name)")
                let fishName = option.name.hasPrefix("--") ? "-l \(option.name.dropFirst(2))" : "-s \(option.name.dropFirst())"
                #expect(scripts[2].contains(fishName), "fish: \(command.name) \(option.name)")
                #expect(manual.contains(ManualPage.escaped(option.name)), "manual: \(command.name) \(option.name)")
            }
        }
        #expect(!manual.contains(".SS generate-manual"))
    }

    @Test func zshAndFishScriptsParse() throws {
        for (shell, check) in [("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])] {
            guard (try? run(["sh", "-c", "command -v \(shell)"]))?.status == 0 else {
                Issue.record("\(shell) is not installed: scripts/bootstrap.sh installs it")
                continue
            }
            let folder = try TemporaryFolder()
            let path = try folder.write("script", fixturekit("completions", shell).standardOutput)
            let result = try run(check + [path])
            #expect(result.status == 0, "\(shell): \(result.standardError)")
        }
        // fish can be asked for the completions themselves.
        if (try? run(["sh", "-c", "command -v fish"]))?.status == 0 {
            let folder = try TemporaryFolder()
            let path = try folder.write("fixturekit.fish", fixturekit("completions", "fish").standardOutput)
            let result = try run(["fish", "-c", "source \(path); complete -C 'fixturekit capture --mode '"])
            #expect(result.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted() == ["checkpoint", "raw", "snapshot"])
        }
    }

    @Test func theManualPageIsValidRoffAndMakeInstallInstallsIt() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("fixturekit.1", fixturekit("generate-manual").standardOutput)
        let result = try run(["groff", "-man", "-Tutf8", "-ww", "-z", path])
        #expect(result.status == 0)
        #expect(result.standardError == "", "\(result.standardError)")
        let makefile = try String(contentsOfFile: repositoryRoot.appendingPathComponent("Makefile").path, encoding: .utf8)
        #expect(makefile.contains("$(RELEASE_BIN) generate-manual > .build/fixturekit.1"))
        #expect(makefile.contains("$(DESTDIR)$(PREFIX)/share/man/man1/fixturekit.1"))
    }
}
