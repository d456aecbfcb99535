import Testing
@testable import SluiceCommandLine

@Suite struct ParsingTests {
    @Test func namesAreThePropertiesInKebabCase() {
        #expect("barrierIntervalMs".kebabCased == "barrier-interval-ms")
        #expect("requireTLSOnLoopback".kebabCased == "require-tls-on-loopback")
        #expect("kafkaSSLListen".kebabCased == "kafka-ssl-listen")
        #expect("printSQL".kebabCased == "print-sql")
        #expect("s3PathStyle".kebabCased == "s3-path-style")
        #expect("sf".kebabCased == "sf")
        #expect(Topic.Create.commandName == "create")
    }

    @Test func defaultsHoldWhenNothingIsGiven() throws {
        let run = try parseRun(["in.json"])
        #expect(run.input == "in.json")
        #expect(run.mode == .fast)
        #expect(run.barrierIntervalMs == 1000)
        #expect(run.memoryLimit == nil)
        #expect(run.count == nil)
        #expect(run.sinks == [])
        #expect(run.ratio == 0.5)
        #expect(run.seed == 42)
        #expect(run.secondMode == nil)
        #expect(!run.requireTLSOnLoopback)
        #expect(!run.output.quiet)
        #expect(run.network.listen == "127.0.0.1:4566")
        #expect(run.network.autoCreateTopics)
        #expect(run.network.s3PathStyle == nil)
    }

    @Test func optionsTakeTheNextTokenOrWhatFollowsTheEqualsSign() throws {
        let run = try parseRun(["--barrier-interval-ms", "250", "--memory-limit=4GiB", "in", "--ratio=0.25", "--seed", "7", "--log-flush=a=b"])
        #expect(run.barrierIntervalMs == 250)
        #expect(run.memoryLimit == "4GiB")
        #expect(run.ratio == 0.25)
        #expect(run.seed == 7)
        #expect(run.logFlush == "a=b")
        #expect(try parseRun(["in", "--memory-limit="]).memoryLimit == "")
    }

    @Test func theLastOfARepeatedOptionWins() throws {
        #expect(try parseRun(["in", "--barrier-interval-ms", "1", "--barrier-interval-ms", "2"]).barrierIntervalMs == 2)
    }

    @Test func arraysCollectEveryOccurrence() throws {
        let run = try parseRun(["in", "--sink", "kafka", "--sink=postgres", "--sink", "copy"])
        #expect(run.sinks == ["kafka", "postgres", "copy"])
    }

    @Test func shortNamesCombineAndTakeTheirValue() throws {
        let run = try parseRun(["in", "-qc", "5"])
        #expect(run.output.quiet)
        #expect(run.count == 5)
        #expect(try parseRun(["in", "-c7"]).count == 7)
        #expect(try parseRun(["in", "-q", "--quiet"]).output.quiet)
    }

    @Test func negativeNumbersAreValues() throws {
        #expect(try parseRun(["in", "--ratio", "-1.5"]).ratio == -1.5)
        #expect(try parseRun(["in", "-c", "-3"]).count == -3)
    }

    @Test func flagsAndTheirInversions() throws {
        let run = try parseRun(["in", "--require-tls-on-loopback", "--print-sql", "--disable-auto-create-topics", "--s3-path-style"])
        #expect(run.requireTLSOnLoopback)
        #expect(run.printSQL)
        #expect(!run.network.autoCreateTopics)
        #expect(run.network.s3PathStyle == true)
        let inverted = try parseRun(["in", "--disable-auto-create-topics", "--enable-auto-create-topics", "--no-s3-path-style"])
        #expect(inverted.network.autoCreateTopics)
        #expect(inverted.network.s3PathStyle == false)
    }

    @Test func positionalsFillInOrderAroundOptions() throws {
        let run = try parseRun(["--seed", "1", "in.csv", "--quiet", "game-api"])
        #expect(run.input == "in.csv")
        #expect(run.mode == .gameAPI)
        #expect(try parseRun(["--", "--in"]).input == "--in")
        #expect(try parseRun(["-"]).input == "-")
    }

    @Test func rawValueEnumsAsOptions() throws {
        #expect(try parseRun(["in", "--second-mode", "safe"]).secondMode == .safe)
    }

    @Test func subcommandsAreDispatchedByName() throws {
        #expect(try parse(["run", "x"]) is Run)
        #expect(try parse(["secret"]) is Secret)
        let create = try #require(try parse(["topic", "create", "events", "--partitions", "3"]) as? Topic.Create)
        #expect(create.name == "events")
        #expect(create.partitions == 3)
        #expect(try parse([]) is Tool)
        #expect(try parse(["topic"]) is Topic)
    }

    @Test func validateRunsOnGroupsAndTheCommand() {
        #expect(throws: ValidationError.self) { try parseRun(["in", "--barrier-interval-ms", "0"]) }
        #expect(throws: ValidationError.self) { try parseRun(["in", "--listen", ""]) }
    }

    @Test func eachParseHasItsOwnValues() throws {
        let first = try parseRun(["a", "--sink", "x"])
        let second = try parseRun(["b"])
        #expect(first.input == "a" && first.sinks == ["x"])
        #expect(second.input == "b" && second.sinks == [])
    }

    @Test func runReturnsTheExitStatus() async {
        #expect(await Tool.run(arguments: ["run", "in"]) == 0)
        #expect(await Tool.run(arguments: ["fail", "--status", "5"]) == 5)
    }
}
