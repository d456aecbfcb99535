/// A property given as `--name value` or `--name=value`. The name is the property's in
/// kebab-case unless `name:` says otherwise; a default makes it optional to give, an Optional type
/// makes it nil when not given, and an array takes the option each time it is repeated.
@propertyWrapper
package struct Option<Value>: ArgumentSlotHolder, Sendable {
    let slot: ArgumentSlot

    package var wrappedValue: Value {
        get { slot.typedValue(Value.self) }
        nonmutating set { slot.value = newValue }
    }

    init(slot: ArgumentSlot) {
        self.slot = slot
    }

    // The compiler looks for a declaration without a value (`@Option var name: String`) here, in
    // the type, before it weighs the initializers of the constrained extensions below.
    @available(*, unavailable, message: "give a default, or a type that conforms to ExpressibleByArgument")
    package init() {
        fatalError("unavailable")
    }
}

extension Option where Value: ExpressibleByArgument {
    /// An option with a default.
    package init(wrappedValue: Value, name: NameSpecification = .long, help: ArgumentHelp? = nil) {
        self.init(slot: ArgumentSlot(
            kind: .option, name: name, help: help, isRequired: false, defaultDescription: wrappedValue.defaultValueDescription,
            allValues: Value.allValueStrings, initialValue: wrappedValue, accumulate: { _, text in Value(argument: text) }))
    }

    /// An option that must be given, declared without help (`@Option var name: String`).
    package init() {
        self.init(name: .long, help: nil)
    }

    /// An option that must be given.
    package init(name: NameSpecification = .long, help: ArgumentHelp?) {
        self.init(slot: ArgumentSlot(
            kind: .option, name: name, help: help, isRequired: true, defaultDescription: nil,
            allValues: Value.allValueStrings, initialValue: nil, accumulate: { _, text in Value(argument: text) }))
    }
}

extension Option {
    /// An option that is nil when not given, declared without help (`@Option var name: String?`).
    package init<Wrapped: ExpressibleByArgument>() where Value == Wrapped? {
        self.init(name: .long, help: nil)
    }

    /// An option that is nil when not given.
    package init<Wrapped: ExpressibleByArgument>(name: NameSpecification = .long, help: ArgumentHelp?) where Value == Wrapped? {
        self.init(slot: ArgumentSlot(
            kind: .option, name: name, help: help, isRequired: false, defaultDescription: nil,
            allValues: Wrapped.allValueStrings, initialValue: Optional<Wrapped>.none as Any,
            accumulate: { _, text in Wrapped(argument: text).map { Optional($0) as Any } }))
    }

    /// An option given any number of times, each adding a value.
    package init<Element: ExpressibleByArgument>(
        wrappedValue: [Element] = [], name: NameSpecification = .long, help: ArgumentHelp? = nil
    ) where Value == [Element] {
        let defaultDescription = wrappedValue.isEmpty ? nil : wrappedValue.map(\.defaultValueDescription).joined(separator: ", ")
        self.init(slot: ArgumentSlot(
            kind: .option, name: name, help: help, isRequired: false, isRepeating: true, defaultDescription: defaultDescription,
            allValues: Element.allValueStrings, initialValue: wrappedValue,
            accumulate: { previous, text in
                guard let element = Element(argument: text) else { return nil }
                return ((previous as? [Element]) ?? []) + [element]
            }))
    }
}
