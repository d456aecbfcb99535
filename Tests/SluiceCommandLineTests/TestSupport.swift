@testable import SluiceCommandLine

/// Parses `arguments` against ``Tool`` and returns the command they name.
func parse(_ arguments: [String]) throws -> any ParsableCommand {
    try CommandParser(root: Tool.self).parse(arguments).command
}

/// Parses `arguments` as a ``Run`` command line.
func parseRun(_ arguments: [String]) throws -> Run {
    guard let run = try parse(["run"] + arguments) as? Run else { throw ValidationError("not a run command") }
    return run
}

/// What the tool prints and its exit status for `arguments`, when parsing fails or asks for help.
func report(_ arguments: [String]) -> (text: String, status: Int32) {
    let parser = CommandParser(root: Tool.self)
    do {
        _ = try parser.parse(arguments)
        return ("", 0)
    } catch {
        let (text, status) = CommandLineFailure.message(for: error, path: parser.resolvedPath)
        return (text, status)
    }
}
