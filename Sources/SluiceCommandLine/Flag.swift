/// A Boolean property given as `--name` alone. With an inversion it has two names, one for each
/// value (`--enable-name`/`--disable-name`), and an Optional type is nil when neither is given.
@propertyWrapper
package struct Flag<Value>: ArgumentSlotHolder, Sendable {
    let slot: ArgumentSlot

    package var wrappedValue: Value {
        get { slot.typedValue(Value.self) }
        nonmutating set { slot.value = newValue }
    }

    init(slot: ArgumentSlot) {
        self.slot = slot
    }
}

extension Flag where Value == Bool {
    /// A flag that sets the property to true (or, with an inversion, to either value).
    package init(wrappedValue: Bool = false, name: NameSpecification = .long, inversion: FlagInversion? = nil, help: ArgumentHelp? = nil) {
        self.init(slot: ArgumentSlot(
            kind: .flag, name: name, help: help, inversion: inversion, isRequired: false,
            defaultDescription: inversion == nil ? nil : String(wrappedValue), allValues: [],
            initialValue: wrappedValue, accumulate: { _, text in text == "true" }))
    }
}

extension Flag where Value == Bool? {
    /// A flag with an inversion that is nil unless one of its names is given.
    package init(name: NameSpecification = .long, inversion: FlagInversion, help: ArgumentHelp? = nil) {
        self.init(slot: ArgumentSlot(
            kind: .flag, name: name, help: help, inversion: inversion, isRequired: false, defaultDescription: nil,
            allValues: [], initialValue: Bool?.none, accumulate: { _, text in Optional(text == "true") }))
    }
}
