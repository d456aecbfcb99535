#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A set of options, flags and arguments read from the command line: the properties declared
/// with `@Option`, `@Flag`, `@Argument` and `@OptionGroup`.
///
/// The parser creates a value with `init()` and finds those properties with `Mirror`; each
/// property wrapper keeps its value in an ``ArgumentSlot`` shared by every copy of the value.
package protocol ParsableArguments: SendableMetatype {
    init()
    /// Checks the parsed values together; a thrown ``ValidationError`` is reported with the usage.
    /// Default: nothing to check.
    mutating func validate() throws
}

extension ParsableArguments {
    package mutating func validate() throws {}
}

/// A command of the tool: its configuration, its arguments, and what it does.
package protocol ParsableCommand: ParsableArguments {
    /// The command's name, help texts and subcommands.
    static var configuration: CommandConfiguration { get }
    /// Does the command's work. Default: prints the command's help (for a command that only
    /// groups subcommands).
    mutating func run() throws
}

extension ParsableCommand {
    package static var configuration: CommandConfiguration { CommandConfiguration() }

    package mutating func run() throws {
        throw CleanExit.helpRequest(Self.self)
    }

    /// The name the command is called by: the configuration's, else the type's name in kebab-case.
    package static var commandName: String {
        if let name = configuration.commandName { return name }
        return String(describing: Self.self).kebabCased
    }
}

/// A command whose work is asynchronous. The root command of a tool whose subcommands are any
/// mix of ``ParsableCommand`` and ``AsyncParsableCommand`` conforms to this one.
package protocol AsyncParsableCommand: ParsableCommand {
    /// Does the command's work. Default: prints the command's help.
    mutating func run() async throws
}

extension AsyncParsableCommand {
    package mutating func run() async throws {
        throw CleanExit.helpRequest(Self.self)
    }

    /// Parses the process's arguments, runs the command they name, and exits: with status 0 when
    /// it returns, else with the status of what it threw (``run(arguments:)``).
    package static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let exitStatus = await run(arguments: arguments)
        exit(exitStatus)
    }

    /// Parses `arguments`, runs the command they name, reports any error on standard error (help
    /// on standard output), and returns the process's exit status.
    package static func run(arguments: [String]) async -> Int32 {
        let parser = CommandParser(root: Self.self)
        let invocation: CommandInvocation
        do {
            invocation = try parser.parse(arguments)
        } catch {
            return CommandLineFailure.report(error, path: parser.resolvedPath)
        }
        do {
            if var command = invocation.command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = invocation.command
                try command.run()
            }
            return 0
        } catch {
            return CommandLineFailure.report(error, path: invocation.path)
        }
    }
}
