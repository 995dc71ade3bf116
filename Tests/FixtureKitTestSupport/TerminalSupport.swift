import Foundation
import Testing

/// Runs the built tool with a pseudo-terminal as its stdin, stdout and stderr,
/// as a user's shell would: what it writes is read back from the terminal's
/// other end, escape sequences and all.
struct TerminalRun {
    var status: Int32
    /// Everything the tool wrote to the terminal (stdout and stderr together),
    /// with the terminal's CR LF line ends turned back into LF.
    var output: String
}

/// glibc's `openpty`, looked up at run time: Swift's Glibc module does not declare it.
private typealias OpenPTY = @convention(c) (UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<CChar>?, UnsafeRawPointer?, UnsafeRawPointer?) -> Int32
private let openPTY: OpenPTY? = dlsym(nil, "openpty").map { unsafeBitCast($0, to: OpenPTY.self) }

/// Runs `fixturekit ARGUMENTS` on a new pseudo-terminal; `input` is typed into it.
func runOnTerminal(_ arguments: [String], in folder: String? = nil, environment: [String: String] = [:], input: String = "") throws -> TerminalRun {
    var master: Int32 = -1
    var slave: Int32 = -1
    guard let openPTY, openPTY(&master, &slave, nil, nil, nil) == 0 else { throw POSIXError(.EIO) }
    defer { close(master) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: toolExecutable)
    process.arguments = arguments
    if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
    var base = ProcessInfo.processInfo.environment
    base["NO_COLOR"] = nil
    base["TERM"] = "xterm"
    for (key, value) in environment { base[key] = value }
    process.environment = base
    let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    process.standardInput = terminal
    process.standardOutput = terminal
    process.standardError = terminal
    try process.run()
    try terminal.close()
    if !input.isEmpty {
        var bytes = Array(input.utf8)
        _ = write(master, &bytes, bytes.count)
    }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, 100)
        if ready > 0 {
            let count = read(master, &buffer, buffer.count)
            // EIO once every descriptor of the terminal's other end is closed.
            if count <= 0 { break }
            output += buffer[0..<count]
        } else if !process.isRunning {
            break
        }
    }
    process.waitUntilExit()
    let text = String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    return TerminalRun(status: process.terminationStatus, output: text)
}
