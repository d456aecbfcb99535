/// The help of one option, flag or argument: a sentence, an optional longer discussion, and the
/// name its value is shown under (`--log-flush <never|always|Nms>`).
package struct ArgumentHelp: ExpressibleByStringLiteral, Sendable {
    /// The sentence beside the option in help.
    package var abstract: String
    /// Paragraphs shown under the option, indented.
    package var discussion: String
    /// The value's name in usage and help (default: the option's name).
    package var valueName: String?

    package init(_ abstract: String = "", discussion: String = "", valueName: String? = nil) {
        self.abstract = abstract
        self.discussion = discussion
        self.valueName = valueName
    }

    package init(stringLiteral value: String) {
        self.init(value)
    }
}

/// How an option or flag is named on the command line, besides or instead of the long name
/// derived from its property.
package struct NameSpecification: Sendable {
    /// One name.
    package enum Element: Sendable, Equatable {
        /// `--` and the property's name in kebab-case.
        case long
        /// `-` and the property's name's first letter.
        case short
        /// `--` and this name.
        case customLong(String)
        /// `-` and this letter.
        case customShort(Character)
    }

    package var elements: [Element]

    package init(_ elements: [Element]) {
        self.elements = elements
    }

    package static var long: NameSpecification { NameSpecification([.long]) }
    package static var short: NameSpecification { NameSpecification([.short]) }
    package static var shortAndLong: NameSpecification { NameSpecification([.short, .long]) }
    package static func customLong(_ name: String) -> NameSpecification { NameSpecification([.customLong(name)]) }
    package static func customShort(_ letter: Character) -> NameSpecification { NameSpecification([.customShort(letter)]) }

    /// The names, with their dashes, for the property `propertyName`: long ones first.
    func names(for propertyName: String) -> (long: [String], short: [String]) {
        var long: [String] = []
        var short: [String] = []
        for element in elements {
            switch element {
            case .long: long.append("--" + propertyName.kebabCased)
            case .short: short.append("-" + String(propertyName.prefix(1)))
            case .customLong(let name): long.append("--" + name)
            case .customShort(let letter): short.append("-" + String(letter))
            }
        }
        return (long, short)
    }
}

/// The names a Boolean flag's two values are given by.
package enum FlagInversion: Sendable {
    /// `--name` and `--no-name`.
    case prefixedNo
    /// `--enable-name` and `--disable-name`.
    case prefixedEnableDisable
}

extension String {
    /// `barrierIntervalMs` as `barrier-interval-ms`; a run of capitals is one word
    /// (`requireTLSOnLoopback`: `require-tls-on-loopback`).
    package var kebabCased: String {
        let characters = Array(self)
        var result = ""
        for (index, character) in characters.enumerated() {
            if character.isUppercase, index > 0 {
                let previous = characters[index - 1]
                let nextIsLowercase = index + 1 < characters.count && characters[index + 1].isLowercase
                if !previous.isUppercase || nextIsLowercase { result.append("-") }
            }
            result += character.lowercased()
        }
        return result
    }
}
