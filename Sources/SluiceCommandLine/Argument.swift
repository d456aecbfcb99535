/// A property given by position: the bare tokens of the command line fill the positional
/// properties in the order they are declared. A default or an Optional type makes it optional.
@propertyWrapper
package struct Argument<Value>: ArgumentSlotHolder, Sendable {
    let slot: ArgumentSlot

    package var wrappedValue: Value {
        get { slot.typedValue(Value.self) }
        nonmutating set { slot.value = newValue }
    }

    init(slot: ArgumentSlot) {
        self.slot = slot
    }

    // The compiler looks for a declaration without a value (`@Argument var name: String`) here, in
    // the type, before it weighs the initializers of the constrained extensions below.
    @available(*, unavailable, message: "give a default, or a type that conforms to ExpressibleByArgument")
    package init() {
        fatalError("unavailable")
    }
}

extension Argument where Value: ExpressibleByArgument {
    /// An argument with a default.
    package init(wrappedValue: Value, help: ArgumentHelp? = nil) {
        self.init(slot: ArgumentSlot(
            kind: .positional, name: .long, help: help, isRequired: false, defaultDescription: wrappedValue.defaultValueDescription,
            allValues: Value.allValueStrings, initialValue: wrappedValue, accumulate: { _, text in Value(argument: text) }))
    }

    /// An argument that must be given, declared without help (`@Argument var name: String`).
    package init() {
        self.init(help: nil)
    }

    /// An argument that must be given.
    package init(help: ArgumentHelp?) {
        self.init(slot: ArgumentSlot(
            kind: .positional, name: .long, help: help, isRequired: true, defaultDescription: nil,
            allValues: Value.allValueStrings, initialValue: nil, accumulate: { _, text in Value(argument: text) }))
    }
}

extension Argument {
    /// An argument that is nil when not given, declared without help.
    package init<Wrapped: ExpressibleByArgument>() where Value == Wrapped? {
        self.init(help: nil)
    }

    /// An argument that is nil when not given.
    package init<Wrapped: ExpressibleByArgument>(help: ArgumentHelp?) where Value == Wrapped? {
        self.init(slot: ArgumentSlot(
            kind: .positional, name: .long, help: help, isRequired: false, defaultDescription: nil,
            allValues: Wrapped.allValueStrings, initialValue: Optional<Wrapped>.none as Any,
            accumulate: { _, text in Wrapped(argument: text).map { Optional($0) as Any } }))
    }
}
