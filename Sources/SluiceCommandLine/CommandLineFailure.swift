#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
private typealias Glibc = Darwin
#endif

/// How the end of a command (an error or a clean exit) is reported and which exit status it gives.
enum CommandLineFailure {
    /// Prints what `error` calls for (help on standard output, a message with the usage on
    /// standard error) and returns the exit status: 0 for help, the code of an ``ExitCode``, 64
    /// for a mistake in the command line or a ``ValidationError``, 1 for anything else.
    static func report(_ error: any Error, path: [any ParsableCommand.Type]) -> Int32 {
        let (text, status) = message(for: error, path: path)
        if !text.isEmpty { write(text, toStandardError: status != 0) }
        return status
    }

    /// The text to print for `error` and the exit status.
    static func message(for error: any Error, path: [any ParsableCommand.Type]) -> (String, Int32) {
        switch error {
        case let exit as CleanExit:
            switch exit {
            case .helpRequest(let type):
                let end = path.lastIndex { ObjectIdentifier($0) == ObjectIdentifier(type) } ?? path.count - 1
                return (HelpFormatter(path: Array(path[...end])).help + "\n", 0)
            case .message(let text):
                return (text + "\n", 0)
            }
        case let code as ExitCode:
            return ("", code.rawValue)
        case let mistake as CommandLineError:
            var text = "Error: \(mistake.message)\n"
            if let label = mistake.label {
                let definition = ArgumentDefinitions(of: path[path.count - 1].init()).all.first { $0.label == label }
                if let definition { text += HelpFormatter.errorHelpLine(definition) + "\n" }
            }
            return (text + usageLines(path), ExitCode.validationFailure.rawValue)
        case let validation as ValidationError:
            return ("Error: \(validation.message)\n" + usageLines(path), ExitCode.validationFailure.rawValue)
        default:
            return ("Error: \(error)\n", ExitCode.failure.rawValue)
        }
    }

    private static func usageLines(_ path: [any ParsableCommand.Type]) -> String {
        let formatter = HelpFormatter(path: path)
        return "Usage: \(formatter.usage)\n  See '\(formatter.commandLine) --help' for more information.\n"
    }

    /// Writes `text` to file descriptor 2 or 1, after what `print` has buffered.
    private static func write(_ text: String, toStandardError: Bool) {
        fflush(nil)
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(toStandardError ? 2 : 1, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
