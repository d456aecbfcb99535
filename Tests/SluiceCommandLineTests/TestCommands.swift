import SluiceCommandLine

/// The commands the tests parse: one of each kind of property, as `sluice`'s commands declare them.
struct Tool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A tool to test the parser with.", subcommands: [Run.self, Secret.self, Topic.self, Fail.self])
}

enum Mode: String, ExpressibleByArgument, CaseIterable {
    case fast, safe
    case gameAPI = "game-api"
}

struct NetworkOptions: ParsableArguments {
    @Option(help: "Address to listen on.")
    var listen = "127.0.0.1:4566"

    @Flag(inversion: .prefixedEnableDisable, help: "Create topics when clients first ask for them.")
    var autoCreateTopics = true

    @Flag(inversion: .prefixedNo, help: "Address buckets by path.")
    var s3PathStyle: Bool?

    func validate() throws {
        if listen.isEmpty { throw ValidationError("--listen must not be empty") }
    }
}

struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "No progress line.") var quiet = false
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run one input through the pipeline.",
        discussion: "Inputs are read once.\nA second line.")

    @Argument(help: "The input file.") var input: String
    @Argument(help: "How to run it.") var mode: Mode = .fast
    @Option(help: "Milliseconds between barriers.") var barrierIntervalMs = 1000
    @Option(help: ArgumentHelp("Bytes of state kept in memory.", discussion: "Past that, pages spill to disk.")) var memoryLimit: String?
    @Option(name: .shortAndLong, help: "Stop after this many rows.") var count: Int?
    @Option(name: .customLong("sink"), help: "Only these sinks.") var sinks: [String] = []
    @Option(help: ArgumentHelp("When to fsync.", valueName: "never|always")) var logFlush = "never"
    @Option(help: "Share of rows kept.") var ratio = 0.5
    @Option(help: "Seed of the random choices.") var seed: UInt64 = 42
    @Option(help: "A mode for the second pass.") var secondMode: Mode?
    @Flag(help: "Refuse clients without TLS.") var requireTLSOnLoopback = false
    @Flag var printSQL = false
    @OptionGroup var output: OutputOptions
    @OptionGroup(title: "Network") var network: NetworkOptions

    func validate() throws {
        guard barrierIntervalMs > 0 else { throw ValidationError("--barrier-interval-ms must be positive") }
    }

    func run() throws {}
}

struct Secret: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "secret", abstract: "Not listed.", shouldDisplay: false)
    @Option var rows = 6
}

struct Topic: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Manage topics.", subcommands: [Create.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a topic.")
        @Argument var name: String
        @Option(help: "Number of partitions.") var partitions: Int32 = 1
    }
}

struct Fail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fails as told.")
    @Option(help: "The exit status.") var status: Int32 = 3
    @Flag(help: "Throw a validation error from run().") var invalid = false

    func run() async throws {
        if invalid { throw ValidationError("bad state") }
        throw ExitCode(status)
    }
}
