/// The manual page, `fixturekit.1`, generated from the same declarations as the
/// help: every command with its usage, discussion, arguments and options.
enum ManualPage {
    static func render(version: String, abstract: String, commands: [CommandConfiguration]) -> String {
        var text = """
            .TH FIXTUREKIT 1 "" "fixturekit \(escaped(version))" "User Commands"
            .SH NAME
            fixturekit \\- \(escaped(abstract))
            .SH SYNOPSIS
            .B fixturekit
            .I command
            [\\fIarguments\\fR ...] [\\fB\\-\\-help\\fR]
            .br
            .B fixturekit \\-\\-version
            .SH DESCRIPTION
            Every command takes \\fB\\-\\-help\\fR, prints machine-readable JSON on standard output with
            \\fB\\-\\-json\\fR, and writes its human output to standard error, progress included when it is a
            terminal. Errors are one line: \\fIfixturekit: what: path: why\\fR.
            .SH COMMANDS

            """
        for command in commands {
            text += ".SS \(escaped(command.name))\n"
            for usage in command.usageLines {
                text += ".B \(escaped(usage))\n.br\n"
            }
            text += ".PP\n\(escaped(command.abstract))\n"
            if let discussion = command.discussion {
                text += ".PP\n" + discussion.split(separator: "\n").map { escaped(String($0)) }.joined(separator: "\n") + "\n"
            }
            for argument in command.arguments {
                text += ".TP\n\\fI\(escaped(argument.name))\\fR\(argument.isRepeating ? " ..." : "")\n\(escaped(argument.fullHelp))\n"
            }
            for option in command.allOptions {
                let names = option.names.map { "\\fB\(escaped($0))\\fR" }.joined(separator: ", ")
                let value = option.valueName.map { " \\fI\(escaped($0))\\fR" } ?? ""
                text += ".TP\n\(names)\(value)\n\(escaped(option.fullHelp))\(option.isRequired ? " Required." : "")\n"
            }
        }
        text += """
            .SH EXIT STATUS
            .TP
            0
            Success: everything checked holds.
            .TP
            1
            A check failed: checksum mismatch, corrupt store, failed migration or invariant, leak found, drift.
            .TP
            2
            Could not do the work: unreadable input, not an SQLite file, locked store, disk full, malformed archive or configuration.
            .TP
            64
            Usage error: unknown command or option, missing argument.
            .SH ENVIRONMENT
            .TP
            .B FIXTUREKIT_ANON_KEY
            The anonymization key (the rules file may name another variable with keyEnv).
            .TP
            .B SOURCE_DATE_EPOCH
            The modification time written in archives (0 when unset).
            .TP
            .B NO_COLOR
            When set and not empty, no colour on a terminal.
            .SH SEE ALSO
            .BR sqlite3 (1),
            .BR sha256sum (1)

            """
        return text
    }

    /// Text as roff shows it: backslashes and dashes escaped, a line never starting a request.
    static func escaped(_ text: String) -> String {
        var result = text.replacingAll("\\", "\\e").replacingAll("-", "\\-")
        if result.hasPrefix(".") || result.hasPrefix("'") { result = "\\&" + result }
        return result
    }
}
