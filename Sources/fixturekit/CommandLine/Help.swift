import Foundation

extension CommandConfiguration {
    /// `fixturekit upgrade <store> --config <FILE> [--backups <DIR>] ...`: required
    /// options without brackets, optional ones in brackets.
    var usage: String { usageLines.joined(separator: "\n       ") }

    /// The usage lines: one, unless the command writes its own.
    var usageLines: [String] {
        let optionWords = { (written: String) in
            options.filter { !written.split(separator: " ").contains(Substring($0.name)) }
                .map { $0.isRequired ? $0.synopsis : "[\($0.synopsis)]" }
        }
        if let usages {
            return usages.map { (["fixturekit", name, $0] + optionWords($0)).joined(separator: " ") }
        }
        var words = ["fixturekit", name]
        for argument in arguments {
            var word = "<\(argument.name)>"
            if argument.isRepeating { word += " ..." }
            words.append(argument.isOptional ? "[\(word)]" : word)
        }
        return [(words + optionWords("")).joined(separator: " ")]
    }

    /// The whole help text: OVERVIEW, USAGE, ARGUMENTS, OPTIONS.
    var help: String {
        var text = "OVERVIEW: \(abstract)\n"
        if let discussion { text += "\n" + discussion + "\n" }
        text += "\nUSAGE: \(usage)\n"
        let argumentRows = arguments.map { ("<\($0.name)>", $0.fullHelp) }
        let optionRows = allOptions.map { option in
            let spelled = option.names.joined(separator: ", ")
            return (option.valueName.map { "\(spelled) <\($0)>" } ?? spelled, option.fullHelp)
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
