/// The command line's grammar, in the shape of swift-argument-parser: each
/// command declares its arguments and options once, as typed values, and the
/// parser, the help, the usage line, the shell completions and the manual page
/// are all derived from those declarations.

/// A mistake in the command line: printed as `Error: <message>` with the usage, exit 64.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

/// An option as the parser, the help and the completions see it, whatever its value's type.
struct OptionDeclaration: Sendable {
    /// Every spelling, the long one first: `["--output", "-o"]`.
    var names: [String]
    /// The value's placeholder (`N`, `FILE`); `nil` for a flag.
    var valueName: String?
    var help: String
    /// The command cannot run without it.
    var isRequired = false
    /// The default, as help shows it: `MigrationFixtures`, `every core`.
    var shownDefault: String?
    var completion: CompletionKind = .none
    /// Whether a word is a valid value, and what a valid one looks like.
    var accepts: @Sendable (String) -> Bool = { _ in true }
    var expectation = ""

    var name: String { names[0] }
    var isFlag: Bool { valueName == nil }

    /// `--config <FILE>`, `--json`.
    var synopsis: String { valueName.map { "\(name) <\($0)>" } ?? name }

    /// The help text with its default: `The corpus folder (default: MigrationFixtures).`
    var fullHelp: String {
        guard let shownDefault else { return help }
        let text = help.hasSuffix(".") ? String(help.dropLast()) : help
        return text + " (default: \(shownDefault))."
    }
}

/// A positional argument as the parser and the help see it.
struct ArgumentDeclaration: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var isRepeating = false
    var shownDefault: String?
    var completion: CompletionKind = .file

    var fullHelp: String {
        guard let shownDefault else { return help }
        let text = help.hasSuffix(".") ? String(help.dropLast()) : help
        return text + " (default: \(shownDefault))."
    }
}

/// A flag: present or not (`--json`).
struct Flag: Sendable {
    let declaration: OptionDeclaration

    init(_ names: String..., help: String) {
        declaration = OptionDeclaration(names: names, valueName: nil, help: help)
    }
}

/// An option with a value of type `Value`: required, with a default, or
/// optional (`Value` is then an `Optional`, absent as `nil`).
struct Option<Value: ArgumentValue>: Sendable {
    let declaration: OptionDeclaration
    /// `nil` only for a required option.
    let defaultValue: Value?

    private init(names: [String], value: String, help: String, required: Bool, defaultValue: Value?, shownDefault: String?, completion: CompletionKind?) {
        declaration = OptionDeclaration(
            names: names, valueName: value, help: help, isRequired: required, shownDefault: shownDefault,
            completion: completion ?? Value.completion, accepts: { Value.parse($0) != nil }, expectation: Value.expectation)
        self.defaultValue = defaultValue
    }

    /// An option with a default, taken when it is not given.
    init(_ names: String..., value: String, default defaultValue: Value, shownDefault: String? = nil, help: String, completion: CompletionKind? = nil) {
        self.init(names: names, value: value, help: help, required: false, defaultValue: defaultValue,
                  shownDefault: shownDefault ?? "\(defaultValue)", completion: completion)
    }

    /// An option that must be given: the usage line shows it without brackets.
    static func required(_ names: String..., value: String, help: String, completion: CompletionKind? = nil) -> Option {
        Option(names: names, value: value, help: help, required: true, defaultValue: nil, shownDefault: nil, completion: completion)
    }
}

extension Option where Value: ExpressibleByNilLiteral {
    /// An option that may be absent: `nil` then, or what `shownDefault` says the library does.
    init(_ names: String..., value: String, shownDefault: String? = nil, help: String, completion: CompletionKind? = nil) {
        let absent: Value = nil
        self.init(names: names, value: value, help: help, required: false, defaultValue: .some(absent), shownDefault: shownDefault, completion: completion)
    }
}

/// A positional argument of type `Value`.
struct Argument<Value: ArgumentValue>: Sendable {
    let declaration: ArgumentDeclaration
    let defaultValue: Value?

    /// A required argument.
    init(_ name: String, help: String, shownDefault: String? = nil, completion: CompletionKind = .file) {
        declaration = ArgumentDeclaration(name: name, help: help, shownDefault: shownDefault, completion: completion)
        defaultValue = nil
    }
}

extension Argument where Value: ExpressibleByNilLiteral {
    /// An argument that may be left out (the more specific overload wins for an `Optional` value).
    init(_ name: String, help: String, shownDefault: String? = nil, completion: CompletionKind = .file) {
        declaration = ArgumentDeclaration(name: name, help: help, isOptional: true, shownDefault: shownDefault, completion: completion)
        let absent: Value = nil
        defaultValue = .some(absent)
    }
}

/// Any number of positional arguments, at the end: `[<path> ...]`.
struct Arguments<Element: ArgumentValue>: Sendable {
    let declaration: ArgumentDeclaration
    /// What an empty list stands for.
    let whenEmpty: [Element]

    init(_ name: String, help: String, minimum: Int = 0, whenEmpty: [Element] = [], shownDefault: String? = nil, completion: CompletionKind = .file) {
        declaration = ArgumentDeclaration(name: name, help: help, isOptional: minimum == 0, isRepeating: true, shownDefault: shownDefault, completion: completion)
        self.whenEmpty = whenEmpty
    }
}

/// Options several commands share, declared once (`--config` with its default).
protocol OptionGroup {
    static var declarations: [OptionDeclaration] { get }
    init(_ parsed: ParsedArguments) throws(UsageError)
}

/// What a command declares about itself.
struct CommandConfiguration: Sendable {
    var name: String
    var abstract: String
    var discussion: String?
    /// Usage lines written out, for a command whose arguments change with an option (`restore --pending`).
    var usages: [String]?
    var arguments: [ArgumentDeclaration] = []
    /// The command's own options and those of the groups it uses, in help's order; `--quiet`,
    /// `--verbose` and `--help` follow them on every command.
    var options: [OptionDeclaration] = []
    /// Left out of the tool's help and the completions (`generate-manual`).
    var isHidden = false

    init(name: String, abstract: String, discussion: String? = nil, usages: [String]? = nil,
         arguments: [ArgumentDeclaration] = [], options: [OptionDeclaration] = [], isHidden: Bool = false) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usages = usages
        self.arguments = arguments
        self.options = options + OutputOptions.declarations
        self.isHidden = isHidden
    }

    /// Every command also understands `--help`.
    static let helpOption = OptionDeclaration(names: ["--help", "-h"], valueName: nil, help: "Show help information.")

    /// The options the parser knows, `--help` included.
    var allOptions: [OptionDeclaration] { options + [Self.helpOption] }
}

// Declarations build arrays of their type-erased forms.
extension Flag { var erased: OptionDeclaration { declaration } }
extension Option { var erased: OptionDeclaration { declaration } }
extension Argument { var erased: ArgumentDeclaration { declaration } }
extension Arguments { var erased: ArgumentDeclaration { declaration } }
