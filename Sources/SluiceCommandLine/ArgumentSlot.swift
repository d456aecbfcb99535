/// How a property is given on the command line.
package enum ArgumentKind: Sendable {
    /// `--name value` or `--name=value`.
    case option
    /// `--name` alone (or its inversion, `--no-name`).
    case flag
    /// A bare token, by position.
    case positional
}

/// One property's rules and its value: created by its property wrapper, shared by every copy of
/// the wrapper (so the parser, which sees the copies `Mirror` hands it, sets the value the command
/// reads).
///
/// Not thread-safe: the parser fills it before the command runs, and nothing writes it after.
package final class ArgumentSlot: @unchecked Sendable {
    let kind: ArgumentKind
    let nameSpecification: NameSpecification
    let help: ArgumentHelp
    let inversion: FlagInversion?
    /// True when no default exists and the property is not optional.
    let isRequired: Bool
    /// True for arrays: each occurrence adds a value.
    let isRepeating: Bool
    /// The default as help shows it; nil when none is shown.
    let defaultDescription: String?
    /// The values the type takes, if listed.
    let allValues: [String]
    /// The property's value after one more input string, given its value before (nil for the
    /// first input); nil when the string is not a valid value. Flags get "true" or "false".
    let accumulate: (Any?, String) -> Any?
    /// The current value: the default, then what was parsed. Nil only when required and not yet given.
    var value: Any?
    /// Whether the command line has set the value (a repeated option then adds to it rather than
    /// to the default).
    var isSet = false

    init(
        kind: ArgumentKind, name: NameSpecification, help: ArgumentHelp?, inversion: FlagInversion? = nil,
        isRequired: Bool, isRepeating: Bool = false, defaultDescription: String?, allValues: [String],
        initialValue: Any?, accumulate: @escaping (Any?, String) -> Any?
    ) {
        self.kind = kind
        self.nameSpecification = name
        self.help = help ?? ArgumentHelp()
        self.inversion = inversion
        self.isRequired = isRequired
        self.isRepeating = isRepeating
        self.defaultDescription = defaultDescription
        self.allValues = allValues
        self.value = initialValue
        self.accumulate = accumulate
    }

    /// The value as the property's type; a required value read before parsing is a programming error.
    func typedValue<Value>(_: Value.Type) -> Value {
        guard let value = value as? Value else {
            preconditionFailure("a command-line property was read before it was parsed")
        }
        return value
    }
}

/// A property wrapper that holds one ``ArgumentSlot``: `@Option`, `@Flag` and `@Argument`.
protocol ArgumentSlotHolder {
    var slot: ArgumentSlot { get }
}

/// A property wrapper that holds a nested ``ParsableArguments``: `@OptionGroup`.
protocol ArgumentGroupHolder {
    var title: String { get }
    var arguments: any ParsableArguments { get }
}
