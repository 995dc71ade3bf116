/// The parsed command line of one command: each declaration's words.
struct ParsedArguments: Equatable {
    /// The positional words, in order.
    var positionals: [String] = []
    /// The words of each positional argument, by its name.
    var argumentWords: [String: [String]] = [:]
    /// Flags given, by their first (long) name.
    var flags: Set<String> = []
    /// Option values, by the option's first (long) name, in the order given.
    var values: [String: [String]] = [:]

    func get(_ flag: Flag) -> Bool { flags.contains(flag.declaration.name) }

    /// The option's value: the last one given (a later option overrides an
    /// earlier one), else its default.
    func get<Value>(_ option: Option<Value>) throws(UsageError) -> Value {
        let declaration = option.declaration
        guard let word = values[declaration.name]?.last else {
            guard let value = option.defaultValue else { throw UsageError("missing required option '\(declaration.synopsis)'") }
            return value
        }
        guard let value = Value.parse(word) else { throw UsageError(Self.invalid(declaration.name, word, Value.expectation)) }
        return value
    }

    func get<Value>(_ argument: Argument<Value>) throws(UsageError) -> Value {
        let declaration = argument.declaration
        guard let word = argumentWords[declaration.name]?.first else {
            guard let value = argument.defaultValue else { throw UsageError("missing expected argument '<\(declaration.name)>'") }
            return value
        }
        guard let value = Value.parse(word) else { throw UsageError(Self.invalid("<\(declaration.name)>", word, Value.expectation)) }
        return value
    }

    func get<Element>(_ arguments: Arguments<Element>) throws(UsageError) -> [Element] {
        let words = argumentWords[arguments.declaration.name] ?? []
        guard !words.isEmpty else { return arguments.whenEmpty }
        var result: [Element] = []
        for word in words {
            guard let value = Element.parse(word) else { throw UsageError(Self.invalid("<\(arguments.declaration.name)>", word, Element.expectation)) }
            result.append(value)
        }
        return result
    }

    static func invalid(_ name: String, _ word: String, _ expectation: String) -> String {
        "'\(name)' \(expectation), not '\(word)'"
    }
}

extension CommandConfiguration {
    /// Parses `arguments` (the words after the command's name): every option
    /// known and with a valid value, every required option given, the
    /// positional words matching the declared arguments.
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
            guard let option = allOptions.first(where: { $0.names.contains(name) }) else {
                throw UsageError("unknown option '\(name)'")
            }
            guard let valueName = option.valueName else {
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                result.flags.insert(option.name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError("missing value for '\(name) <\(valueName)>'") }
                value = arguments[index]
                index += 1
            }
            guard option.accepts(value) else { throw UsageError(ParsedArguments.invalid(name, value, option.expectation)) }
            result.values[option.name, default: []].append(value)
        }
        // `--help` anywhere wins over what is missing.
        if result.flags.contains(Self.helpOption.name) { return result }
        result.argumentWords = try assign(result.positionals)
        for option in options where option.isRequired && result.values[option.name] == nil {
            throw UsageError("missing required option '\(option.synopsis)'")
        }
        return result
    }

    /// The words of each declared argument: required ones first, then the
    /// optional ones in order, a repeating last one taking the rest.
    private func assign(_ positionals: [String]) throws(UsageError) -> [String: [String]] {
        let required = arguments.filter { !$0.isOptional || ($0.isRepeating && !$0.isOptional) }
        if positionals.count < required.count {
            throw UsageError("missing expected argument '<\(required[positionals.count].name)>'")
        }
        if arguments.last?.isRepeating != true, positionals.count > arguments.count {
            throw UsageError("unexpected argument '\(positionals[arguments.count])'")
        }
        var words: [String: [String]] = [:]
        var rest = positionals[...]
        for argument in arguments {
            if argument.isRepeating {
                words[argument.name] = Array(rest)
                rest = []
            } else if let first = rest.first {
                words[argument.name] = [first]
                rest = rest.dropFirst()
            }
        }
        return words
    }
}
