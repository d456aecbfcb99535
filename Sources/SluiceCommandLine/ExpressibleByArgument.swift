/// A type whose values are read from one command-line string.
package protocol ExpressibleByArgument {
    /// The value `argument` spells; nil when it spells none.
    init?(argument: String)
    /// How a default value is shown in help (`(default: …)`).
    var defaultValueDescription: String { get }
    /// Every value, as the user types it, for types with few (listed in help and errors); else empty.
    static var allValueStrings: [String] { get }
}

extension ExpressibleByArgument {
    package var defaultValueDescription: String { "\(self)" }
    package static var allValueStrings: [String] { [] }
}

extension ExpressibleByArgument where Self: RawRepresentable, RawValue: ExpressibleByArgument {
    package init?(argument: String) {
        guard let rawValue = RawValue(argument: argument) else { return nil }
        self.init(rawValue: rawValue)
    }

    package var defaultValueDescription: String { rawValue.defaultValueDescription }
}

extension ExpressibleByArgument where Self: CaseIterable, Self: RawRepresentable, RawValue: ExpressibleByArgument {
    package static var allValueStrings: [String] { allCases.map { $0.rawValue.defaultValueDescription } }
}

extension String: ExpressibleByArgument {
    package init?(argument: String) { self = argument }
}

extension Int: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument, radix: 10) }
}

extension Int32: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument, radix: 10) }
}

extension Int64: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument, radix: 10) }
}

extension UInt64: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument, radix: 10) }
}

extension Double: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument) }
}

extension Bool: ExpressibleByArgument {
    package init?(argument: String) { self.init(argument) }
}
