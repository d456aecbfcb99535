import Testing
@testable import SluiceCommandLine

@Suite struct HelpTests {
    @Test func commandHelpListsEveryOptionWithItsHelpAndDefault() {
        let (text, status) = report(["run", "--help"])
        #expect(status == 0)
        #expect(text == """
            OVERVIEW: Run one input through the pipeline.

            Inputs are read once.
            A second line.

            USAGE: tool run [<options>] <input> [<mode>]

            ARGUMENTS:
              <input>                 The input file.
              <mode>                  How to run it. (values: fast, safe, game-api;
                                      default: fast)

            NETWORK:
              --listen <listen>       Address to listen on. (default: 127.0.0.1:4566)
              --enable-auto-create-topics/--disable-auto-create-topics
                                      Create topics when clients first ask for them.
                                      (default: --enable-auto-create-topics)
              --s3-path-style/--no-s3-path-style
                                      Address buckets by path.

            OPTIONS:
              --barrier-interval-ms <barrier-interval-ms>
                                      Milliseconds between barriers. (default: 1000)
              --memory-limit <memory-limit>
                                      Bytes of state kept in memory.
                    Past that, pages spill to disk.
              -c, --count <count>     Stop after this many rows.
              --sink <sink>           Only these sinks.
              --log-flush <never|always>
                                      When to fsync. (default: never)
              --ratio <ratio>         Share of rows kept. (default: 0.5)
              --seed <seed>           Seed of the random choices. (default: 42)
              --second-mode <second-mode>
                                      A mode for the second pass. (values: fast, safe,
                                      game-api)
              --require-tls-on-loopback
                                      Refuse clients without TLS.
              --print-sql
              -q, --quiet             No progress line.
              -h, --help              Show help information.


            """)
    }

    @Test func shortUsageListsEveryOption() {
        #expect(HelpFormatter(path: [Tool.self, Topic.self, Topic.Create.self]).usage == "tool topic create <name> [--partitions <partitions>]")
        #expect(HelpFormatter(path: [Tool.self, Secret.self]).usage == "tool secret [--rows <rows>]")
    }

    @Test func groupHelpListsVisibleSubcommands() {
        let (text, status) = report(["--help"])
        #expect(status == 0)
        #expect(text == """
            OVERVIEW: A tool to test the parser with.

            USAGE: tool <subcommand>

            OPTIONS:
              -h, --help              Show help information.

            SUBCOMMANDS:
              run                     Run one input through the pipeline.
              topic                   Manage topics.
              fail                    Fails as told.

              See 'tool help <subcommand>' for detailed help.

            """)
    }

    @Test func helpComesFromEveryLevelAndEveryForm() {
        let create = report(["topic", "create", "--help"]).text
        #expect(create.hasPrefix("OVERVIEW: Create a topic.\n\nUSAGE: tool topic create <name> [--partitions <partitions>]\n"))
        #expect(report(["topic", "create", "-h"]).text == create)
        #expect(report(["help", "topic", "create"]).text == create)
        #expect(report(["topic", "create", "--bogus", "--help"]).text == create)
        #expect((try? parse(["topic", "create", "--", "--help"]) as? Topic.Create)?.name == "--help")
        #expect(report(["help", "nosuch"]).text == report(["--help"]).text)
        #expect(HelpFormatter(path: [Tool.self, Topic.self]).help.hasSuffix("\n  See 'tool help topic <subcommand>' for detailed help."))
    }

    @Test func longTextWrapsAtEightyColumnsLeavingRoomForASpaceBeforeAnotherWord() {
        let long = String(repeating: "a", count: 48)
        let indent = String(repeating: " ", count: 26)
        // 26 + 48 + 1 + 5 = 80 columns: a paragraph's last word fits, another word does not.
        #expect(HelpFormatter.wrap(long + " bcdef", indent: 26, firstLineUsed: 26) == long + " bcdef")
        #expect(HelpFormatter.wrap(long + " bcdef g", indent: 26, firstLineUsed: 26) == long + "\n" + indent + "bcdef g")
        #expect(HelpFormatter.wrap("one\n\ntwo", indent: 4) == "one\n\n    two")
    }
}
