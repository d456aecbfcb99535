/// A user's mistake found after parsing (by `validate()` or `run()`): reported as
/// `Error: <message>` with the command's usage, and exit status 64.
package struct ValidationError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, as one sentence.
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}

/// An exit status a command ends with, silently.
package struct ExitCode: Error, RawRepresentable, Hashable, Sendable {
    /// The process's exit status.
    package var rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package init(_ code: Int32) {
        self.rawValue = code
    }

    /// Status 0.
    package static let success = ExitCode(0)
    /// Status 1.
    package static let failure = ExitCode(1)
    /// Status 64 (EX_USAGE): the command line was wrong.
    package static let validationFailure = ExitCode(64)
}

/// An early end that is not a failure: help asked for, or a message to print.
package enum CleanExit: Error, Sendable {
    /// Print the help of this command and exit with status 0.
    case helpRequest(any ParsableCommand.Type)
    /// Print this message and exit with status 0.
    case message(String)
}

/// A mistake in the command line itself, found by the parser.
package enum CommandLineError: Error, Equatable, Sendable {
    /// An option or flag no definition names (`--bogus`), and the command's long name closest
    /// to it, if one is close.
    case unknownOption(String, suggestion: String? = nil)
    /// A token no positional argument or subcommand takes.
    case unexpectedArgument(String)
    /// An option given last, or followed by another option, with no value. Carries the option's label.
    case missingValue(label: String)
    /// A required option or argument not given. Carries its label.
    case missingArgument(label: String)
    /// A value the property's type cannot take. Carries the value, the label and the accepted values (if listed).
    case invalidValue(String, label: String, allowed: [String])
    /// A value given to a flag (`--quiet=yes`). Carries the flag and the value.
    case valueForFlag(String, value: String)
}

extension CommandLineError {
    /// The message after `Error: `.
    var message: String {
        switch self {
        case .unknownOption(let name, let suggestion?):
            return "Unknown option '\(name)'. Did you mean '\(suggestion)'?"
        case .unknownOption(let name, nil):
            return "Unknown option '\(name)'"
        case .unexpectedArgument(let token):
            return "Unexpected argument '\(token)'"
        case .missingValue(let label):
            return "Missing value for '\(label)'"
        case .missingArgument(let label):
            return "Missing expected argument '\(label)'"
        case .invalidValue(let value, let label, let allowed):
            guard !allowed.isEmpty else { return "The value '\(value)' is invalid for '\(label)'" }
            if allowed.count > 4 {
                let lines = allowed.map { "\n  - \($0)" }.joined()
                return "The value '\(value)' is invalid for '\(label)'. Please provide one of the following:\(lines)"
            }
            let quoted = allowed.map { "'\($0)'" }
            let list = quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
            return "The value '\(value)' is invalid for '\(label)'. Please provide one of \(list)."
        case .valueForFlag(let name, let value):
            return "The option '\(name)' does not take any value, but '\(value)' was specified."
        }
    }

    /// The label of the argument the error is about, for the `Help:` line.
    var label: String? {
        switch self {
        case .missingValue(let label), .missingArgument(let label), .invalidValue(_, let label, _): label
        case .unknownOption, .unexpectedArgument, .valueForFlag: nil
        }
    }
}
