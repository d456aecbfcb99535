/// A parsed command line: the command to run, filled in and validated, and the commands that
/// lead to it from the root.
struct CommandInvocation {
    var command: any ParsableCommand
    var path: [any ParsableCommand.Type]
}

/// Turns a command line into a ``CommandInvocation``: finds the subcommand the leading words
/// name, then gives the rest to that command's options, flags and arguments.
///
/// Errors are ``CommandLineError``s, ``CleanExit/helpRequest(_:)`` for `--help`, `-h` and
/// `help <subcommand>`, or what `validate()` throws. `resolvedPath` says which command they
/// concern.
final class CommandParser {
    let root: any ParsableCommand.Type
    /// The commands named so far, from the root.
    private(set) var resolvedPath: [any ParsableCommand.Type]

    init(root: any ParsableCommand.Type) {
        self.root = root
        self.resolvedPath = [root]
    }

    func parse(_ arguments: [String]) throws -> CommandInvocation {
        var tokens = arguments[...]
        if tokens.first == "help", !root.configuration.subcommands.isEmpty {
            tokens.removeFirst()
            while let word = tokens.first, let subcommand = Self.subcommand(of: resolvedPath[resolvedPath.count - 1], named: word) {
                resolvedPath.append(subcommand)
                tokens.removeFirst()
            }
            throw CleanExit.helpRequest(resolvedPath[resolvedPath.count - 1])
        }
        while let word = tokens.first, let subcommand = Self.subcommand(of: resolvedPath[resolvedPath.count - 1], named: word) {
            resolvedPath.append(subcommand)
            tokens.removeFirst()
        }
        let type = resolvedPath[resolvedPath.count - 1]
        for token in tokens {
            if token == "--" { break }
            if Self.isHelp(token) { throw CleanExit.helpRequest(type) }
        }
        var command = type.init()
        let definitions = ArgumentDefinitions(of: command)
        try Self.fill(definitions, from: Array(tokens))
        for var group in definitions.groups { try group.validate() }
        try command.validate()
        return CommandInvocation(command: command, path: resolvedPath)
    }

    static func isHelp(_ token: String) -> Bool { token == "--help" || token == "-h" }

    static func subcommand(of command: any ParsableCommand.Type, named name: String) -> (any ParsableCommand.Type)? {
        command.configuration.subcommands.first { $0.commandName == name }
    }

    /// Sets the properties `definitions` hold from `tokens`, then checks that every required one
    /// was given. A missing argument is reported before an unknown option, and that before a
    /// token left over, as ArgumentParser did.
    static func fill(_ definitions: ArgumentDefinitions, from tokens: [String]) throws {
        var bareTokens: [String] = []
        var unknownOption: CommandLineError?
        var index = 0
        var isPastTerminator = false
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if isPastTerminator || !looksLikeName(token) {
                bareTokens.append(token)
            } else if token == "--" {
                isPastTerminator = true
            } else if token.hasPrefix("--") {
                var name = token
                var attached: String?
                if let equals = token.firstIndex(of: "=") {
                    name = String(token[..<equals])
                    attached = String(token[token.index(after: equals)...])
                }
                guard let found = definitions.definition(named: name) else {
                    unknownOption = unknownOption ?? .unknownOption(name, suggestion: definitions.longName(closestTo: name))
                    continue
                }
                let (definition, flagValue) = found
                if definition.kind == .flag {
                    if let attached { throw CommandLineError.valueForFlag(name, value: attached) }
                    try set(definition, to: flagValue ? "true" : "false")
                } else {
                    try set(definition, to: attached ?? takeValue(for: definition, from: tokens, at: &index))
                }
            } else if let unknown = try fillShortNames(token, definitions, tokens, &index) {
                unknownOption = unknownOption ?? unknown
            }
        }
        let leftOver = try fillPositionals(definitions.positionals, from: bareTokens)
        if let unknownOption { throw unknownOption }
        if let extra = leftOver.first { throw CommandLineError.unexpectedArgument(extra) }
        for definition in definitions.named where definition.slot.isRequired && !definition.slot.isSet {
            throw CommandLineError.missingArgument(label: definition.label)
        }
    }

    /// `-q`, `-qo file`, `-ofile`: letters that name flags, then perhaps one option, whose value is
    /// the rest of the token or the next token. Returns the error for a letter that names nothing.
    private static func fillShortNames(
        _ token: String, _ definitions: ArgumentDefinitions, _ tokens: [String], _ index: inout Int
    ) throws -> CommandLineError? {
        var letters = token.dropFirst()
        while let letter = letters.first {
            letters.removeFirst()
            let name = "-" + String(letter)
            guard let definition = definitions.definition(named: name)?.0 else { return .unknownOption(name) }
            if definition.kind == .flag {
                try set(definition, to: "true")
            } else {
                let value = letters.isEmpty ? try takeValue(for: definition, from: tokens, at: &index) : String(letters)
                try set(definition, to: value)
                break
            }
        }
        return nil
    }

    /// Gives the bare tokens to the positional properties in order; returns the tokens none took.
    private static func fillPositionals(_ positionals: [ArgumentDefinition], from tokens: [String]) throws -> ArraySlice<String> {
        var remaining = tokens[...]
        for definition in positionals {
            if definition.slot.isRepeating {
                while let token = remaining.popFirst() { try set(definition, to: token) }
            } else if let token = remaining.popFirst() {
                try set(definition, to: token)
            }
            if definition.slot.isRequired && !definition.slot.isSet {
                throw CommandLineError.missingArgument(label: definition.label)
            }
        }
        return remaining
    }

    /// The token after an option: its value, unless there is none or it is another option.
    private static func takeValue(for definition: ArgumentDefinition, from tokens: [String], at index: inout Int) throws -> String {
        guard index < tokens.count, !looksLikeName(tokens[index]) else {
            throw CommandLineError.missingValue(label: definition.label)
        }
        index += 1
        return tokens[index - 1]
    }

    /// Whether `token` names an option or flag (or is `--`): it starts with a dash and is not `-`
    /// alone or a negative number.
    static func looksLikeName(_ token: String) -> Bool {
        guard token.hasPrefix("-"), token.count > 1 else { return false }
        let rest = token.dropFirst()
        return !(rest.first!.isNumber && Double(rest) != nil)
    }

    private static func set(_ definition: ArgumentDefinition, to text: String) throws {
        let slot = definition.slot
        guard let value = slot.accumulate(slot.isSet ? slot.value : nil, text) else {
            throw CommandLineError.invalidValue(text, label: definition.label, allowed: slot.allValues)
        }
        slot.value = value
        slot.isSet = true
    }
}
