import Testing
@testable import SluiceCommandLine

@Suite struct ErrorTests {
    let runUsage = "Usage: tool run [<options>] <input> [<mode>]\n  See 'tool run --help' for more information.\n"

    @Test func unknownOption() {
        #expect(report(["run", "in", "--bogus"]) == ("Error: Unknown option '--bogus'\n" + runUsage, 64))
        #expect(report(["run", "in", "-x"]) == ("Error: Unknown option '-x'\n" + runUsage, 64))
        #expect(report(["run", "in", "--bogus=1"]).text.hasPrefix("Error: Unknown option '--bogus'\n"))
    }

    @Test func unknownOptionNearAKnownOneSuggestsIt() {
        #expect(report(["run", "in", "--barier-interval-ms"]) == (
            "Error: Unknown option '--barier-interval-ms'. Did you mean '--barrier-interval-ms'?\n" + runUsage, 64))
        #expect(report(["run", "in", "--no-s3-pathstyle"]).text.hasPrefix("Error: Unknown option '--no-s3-pathstyle'. Did you mean '--no-s3-path-style'?\n"))
        #expect(report(["run", "in", "--lisen"]).text.hasPrefix("Error: Unknown option '--lisen'. Did you mean '--listen'?\n"))
        #expect("kitten".editDistance(to: "sitting") == 3)
        #expect("".editDistance(to: "abc") == 3)
        #expect("abc".editDistance(to: "") == 3)
    }

    @Test func missingValue() {
        let expected = "Error: Missing value for '--barrier-interval-ms <barrier-interval-ms>'\n"
            + "Help:  --barrier-interval-ms <barrier-interval-ms>  Milliseconds between barriers.\n" + runUsage
        #expect(report(["run", "in", "--barrier-interval-ms"]) == (expected, 64))
        #expect(report(["run", "in", "--barrier-interval-ms", "--quiet"]) == (expected, 64))
    }

    @Test func missingArgument() {
        #expect(report(["topic", "create"]) == ("""
            Error: Missing expected argument '<name>'
            Help:  <name>  \("")
            Usage: tool topic create <name> [--partitions <partitions>]
              See 'tool topic create --help' for more information.

            """, 64))
    }

    @Test func invalidValues() {
        #expect(report(["run", "in", "--barrier-interval-ms", "abc"]) == ("""
            Error: The value 'abc' is invalid for '--barrier-interval-ms <barrier-interval-ms>'
            Help:  --barrier-interval-ms <barrier-interval-ms>  Milliseconds between barriers.

            """ + runUsage, 64))
        #expect(report(["run", "in", "--ratio=x"]).text.hasPrefix("Error: The value 'x' is invalid for '--ratio <ratio>'\n"))
        #expect(report(["run", "in", "--seed", "-1"]).text.hasPrefix("Error: The value '-1' is invalid for '--seed <seed>'\n"))
        #expect(report(["run", "in", "slow"]).text.hasPrefix(
            "Error: The value 'slow' is invalid for '<mode>'. Please provide one of 'fast', 'safe' or 'game-api'.\n"))
    }

    @Test func aMissingArgumentComesBeforeAnUnknownOptionAndThatBeforeALeftOverToken() {
        #expect(report(["topic", "create", "--bogus"]).text.hasPrefix("Error: Missing expected argument '<name>'\n"))
        #expect(report(["run", "in", "fast", "extra", "--bogus", "-x"]).text.hasPrefix("Error: Unknown option '--bogus'\n"))
    }

    @Test func valueGivenToAFlag() {
        #expect(report(["run", "in", "--quiet=yes"]).text.hasPrefix("Error: The option '--quiet' does not take any value, but 'yes' was specified.\n"))
    }

    @Test func unexpectedArgument() {
        #expect(report(["run", "in", "fast", "extra"]) == ("Error: Unexpected argument 'extra'\n" + runUsage, 64))
        #expect(report(["nosuch"]) == ("Error: Unexpected argument 'nosuch'\nUsage: tool <subcommand>\n  See 'tool --help' for more information.\n", 64))
    }

    @Test func validationErrorsFromValidateAndRun() {
        #expect(report(["run", "in", "--barrier-interval-ms", "0"]) == ("Error: --barrier-interval-ms must be positive\n" + runUsage, 64))
        #expect(report(["run", "in", "--listen="]) == ("Error: --listen must not be empty\n" + runUsage, 64))
        let (text, status) = CommandLineFailure.message(for: ValidationError("bad state"), path: [Tool.self, Fail.self])
        #expect(status == 64)
        #expect(text.hasPrefix("Error: bad state\nUsage: tool fail [--status <status>] [--invalid]\n"))
    }

    @Test func exitCodesAndOtherErrors() {
        #expect(CommandLineFailure.message(for: ExitCode(7), path: [Tool.self]) == ("", 7))
        #expect(CommandLineFailure.message(for: CleanExit.message("done"), path: [Tool.self]) == ("done\n", 0))
        struct Broken: Error, CustomStringConvertible { var description: String { "disk full" } }
        #expect(CommandLineFailure.message(for: Broken(), path: [Tool.self]) == ("Error: disk full\n", 1))
    }
}
