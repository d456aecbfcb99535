/// A property that holds a group of options declared in another ``ParsableArguments`` type,
/// shared by several commands. A title puts the group under its own heading in help.
@propertyWrapper
package struct OptionGroup<Value: ParsableArguments>: ArgumentGroupHolder {
    package let title: String
    package var wrappedValue: Value

    package init(title: String = "") {
        self.title = title
        self.wrappedValue = Value()
    }

    var arguments: any ParsableArguments { wrappedValue }
}

extension OptionGroup: Sendable where Value: Sendable {}
