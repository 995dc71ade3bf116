/// The command line's grammar, in the shape of swift-argument-parser: each
/// command declares its arguments and options once, and both parsing and help
/// are derived from the declaration.

/// A mistake in the command line: printed as `Error: <message>` with the usage, exit 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// An option: a flag (`--json`) or an option with a value (`--jobs N`, `--jobs=N`).
struct OptionDefinition: Sendable {
    /// Every spelling, the long one first: `["--output", "-o"]`.
    var names: [String]
    /// The value's placeholder in help (`N`, `FILE`); `nil` for a flag.
    var valueName: String?
    var help: String

    static func flag(_ names: String..., help: String) -> OptionDefinition {
        OptionDefinition(names: names, valueName: nil, help: help)
    }

    static func option(_ names: String..., value: String, help: String) -> OptionDefinition {
        OptionDefinition(names: names, valueName: value, help: help)
    }

    var name: String { names[0] }
}

/// A positional argument.
struct ArgumentDefinition: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var isRepeating = false
}

/// What a command declares about itself.
struct CommandConfiguration: Sendable {
    var name: String
    var abstract: String
    var discussion: String?
    var arguments: [ArgumentDefinition] = []
    var options: [OptionDefinition] = []

    /// Every command also understands `--help`.
    static let helpOption = OptionDefinition.flag("--help", "-h", help: "Show help information.")
}

/// The parsed command line of one command.
struct ParsedArguments: Equatable {
    var positionals: [String] = []
    /// Flags given, by their first (long) name.
    var flags: Set<String> = []
    /// Option values, by the option's first (long) name, in the order given.
    var values: [String: [String]] = [:]

    func flag(_ name: String) -> Bool { flags.contains(name) }
    /// The last value given for `name`: a later option overrides an earlier one.
    func value(_ name: String) -> String? { values[name]?.last }
}

extension CommandConfiguration {
    /// Parses `arguments` (the words after the command's name).
    ///
    /// Options may come before, between or after the positional arguments; `--`
    /// ends the options, so a path may start with `-`. A lone `-` is positional.
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                result.positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = (options + [Self.helpOption]).first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option '\(name)'")
            }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                result.flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("missing value for '\(name) <\(option.valueName!)>'") }
                value = arguments[index]
                index += 1
            }
            result.values[option.name, default: []].append(value)
        }
        try checkPositionals(result.positionals)
        return result
    }

    private func checkPositionals(_ positionals: [String]) throws(UsageError) {
        let required = arguments.filter { !$0.isOptional }
        if positionals.count < required.count {
            throw UsageError("missing expected argument '<\(required[positionals.count].name)>'")
        }
        if arguments.last?.isRepeating != true, positionals.count > arguments.count {
            throw UsageError("unexpected argument '\(positionals[arguments.count])'")
        }
    }

    /// `fixturekit verify [--json] [<path> ...]`.
    var usage: String {
        var words = ["fixturekit", name]
        for argument in arguments {
            var word = "<\(argument.name)>"
            if argument.isRepeating { word += " ..." }
            words.append(argument.isOptional ? "[\(word)]" : word)
        }
        for option in options {
            let word = option.valueName.map { "\(option.name) <\($0)>" } ?? option.name
            words.append("[\(word)]")
        }
        return words.joined(separator: " ")
    }

    /// The whole help text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS.
    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(usage)\n"
        let argumentRows = arguments.map { ("<\($0.name)>", $0.help) }
        let optionRows = (options + [Self.helpOption]).map { option in
            let spelled = option.names.joined(separator: ", ")
            return (option.valueName.map { "\(spelled) <\($0)>" } ?? spelled, option.help)
        }
        // One column width for both tables, so the help texts line up.
        let width = HelpTable.width(argumentRows + optionRows)
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + HelpTable.render(argumentRows, width: width)
        }
        text += "\nOPTIONS:\n" + HelpTable.render(optionRows, width: width)
        return text
    }
}

/// Two columns, as swift-argument-parser lays out its help.
enum HelpTable {
    /// The label column's width: the longest label, within bounds.
    static func width(_ rows: [(String, String)]) -> Int {
        min(max(rows.map(\.0.count).max() ?? 0, 10), 28)
    }

    static func render(_ rows: [(String, String)], width: Int? = nil) -> String {
        let width = width ?? Self.width(rows)
        var text = ""
        for (label, help) in rows {
            if label.count > width {
                text += "  \(label)\n" + String(repeating: " ", count: width + 4) + help + "\n"
            } else {
                text += "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + help + "\n"
            }
        }
        return text
    }
}
