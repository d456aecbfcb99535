import SluiceCommandLine
import Foundation
import SluiceCore
import SluiceGen

/// `sluice gen balloon|user-cdc|payments|nexmark`: the seeds' events and Nexmark's, produced to
/// a Kafka topic or written as NDJSON.
struct Gen: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate the seeds' events (balloon game, user CDC, payments) or Nexmark's, to a Kafka topic or as NDJSON.",
        discussion: """
            Events are seeded: the same --seed and options give the same events. Timestamps follow a \
            simulated clock from --start-time (so output is byte-identical run to run) unless the run is \
            paced (--rate or --duration), where they are the wall-clock time of generation; \
            --timestamps simulated|wall overrides that.
            """,
        subcommands: [Balloon.self, UserCDC.self, Payments.self, Nexmark.self])

    struct Balloon: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Balloon pops for seed 000's balloon_game_events (key: player).")
        @OptionGroup var options: GenOptions
        @Option(help: "Number of players.") var players = 10
        @Option(help: "Probability that a pop is of one of the player's favorite colors on purpose.") var bonusProbability = BalloonGame.defaultBonusProbability

        func run() throws {
            var configuration = BalloonGenerator.Configuration()
            configuration.seed = options.seed
            configuration.players = players
            configuration.bonusProbability = bonusProbability
            configuration.timeline = try options.timeline()
            if let eventsPerSecond = options.eventsPerSecond { configuration.eventsPerSecond = eventsPerSecond }
            var generator = BalloonGenerator(configuration)
            try options.run("balloon", &generator, defaultTopic: "balloon_game_events")
        }
    }

    struct UserCDC: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user-cdc", abstract: "Insert/update/delete events for seed 001's user_events, as its producer.py sends them (key: id).")
        @OptionGroup var options: GenOptions
        @Option(help: "Number of user ids (producer.py has 3).") var users = 3

        func run() throws {
            var configuration = UserCDCGenerator.Configuration()
            configuration.seed = options.seed
            configuration.users = users
            configuration.timeline = try options.timeline()
            if let eventsPerSecond = options.eventsPerSecond { configuration.eventsPerSecond = eventsPerSecond }
            var generator = UserCDCGenerator(configuration)
            try options.run("user-cdc", &generator, defaultTopic: "user-events")
        }
    }

    struct Payments: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seed 004's payment events, one kind per run, with its data-quality defects (key: charge_id, or subscription_id).")
        @OptionGroup var options: GenOptions
        @Option(help: "charges, refunds, disputes or subscriptions.") var kind: PaymentsGenerator.Kind = .charges
        @Option(help: "Probability of each data-quality defect where it can occur (0: clean data).") var defectRate = PaymentDefects.standard.nullSpelling

        func validate() throws {
            guard (0 ... 1).contains(defectRate) else { throw ValidationError("--defect-rate must be between 0 and 1") }
        }

        func run() throws {
            var configuration = PaymentsGenerator.Configuration()
            configuration.seed = options.seed
            configuration.kind = kind
            configuration.defects = PaymentDefects(rate: defectRate)
            configuration.timeline = try options.timeline()
            if let eventsPerSecond = options.eventsPerSecond { configuration.eventsPerSecond = eventsPerSecond }
            var generator = PaymentsGenerator(configuration)
            try options.run("payments \(kind.rawValue)", &generator, defaultTopic: kind.topic)
        }
    }

    struct Nexmark: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Nexmark's person, auction and bid events: all in one topic with event_type, or one kind, flat.")
        @OptionGroup var options: GenOptions
        @Option(help: "person, auction, bid, or all (one topic, each event nested under event_type).") var kind: NexmarkGenerator.Kind = .all

        func run() throws {
            var configuration = NexmarkGenerator.Configuration()
            configuration.seed = options.seed
            configuration.kind = kind
            configuration.timeline = try options.timeline()
            if let eventsPerSecond = options.eventsPerSecond { configuration.eventsPerSecond = eventsPerSecond }
            var generator = NexmarkGenerator(configuration)
            try options.run("nexmark", &generator, defaultTopic: kind == .all ? "nexmark-events" : "nexmark-\(kind.rawValue)")
        }
    }
}

extension PaymentsGenerator.Kind: ExpressibleByArgument {}
extension NexmarkGenerator.Kind: ExpressibleByArgument {}

/// Where event timestamps come from, as `--timestamps` says.
enum TimestampSource: String, ExpressibleByArgument, CaseIterable {
    /// Simulated unless the run is paced.
    case auto
    case simulated
    case wall
}

/// The options every generator takes.
struct GenOptions: ParsableArguments {
    @Option(help: "Seed of the random choices.") var seed: UInt64 = 42
    @Option(help: "Stop after this many events.") var count: Int?
    @Option(help: "Stop after this many seconds.") var duration: Double?
    @Option(help: "Events a second (0: as fast as possible).") var rate: Double = 0
    @Option(help: "Topic to produce to (default: the seed's).") var topic: String?
    @Option(name: .shortAndLong, help: "The Kafka broker (host:port).") var bootstrap = "localhost:9092"
    @Option(help: "Partitions for the topic if it does not exist (default: the broker's auto-creation).") var partitions: Int32?
    @Option(name: .shortAndLong, help: "Write NDJSON to this file instead of producing ('-': standard output).") var output: String?
    @Option(help: "Event timestamps: auto (simulated unless paced), simulated or wall.") var timestamps: TimestampSource = .auto
    @Option(help: "The simulated clock's first timestamp.") var startTime = "2025-01-01T00:00:00Z"
    @Option(help: "Events a second on the simulated clock, unpaced (default: --rate, or the generator's own).") var simulatedRate: Double?
    @Flag(name: .shortAndLong, help: "No progress line and no summary.") var quiet = false

    /// How far apart events are timed: `--simulated-rate`, else `--rate`; nil for the generator's own.
    var eventsPerSecond: Double? { simulatedRate ?? (rate > 0 ? rate : nil) }

    func validate() throws {
        if let count, count < 0 { throw ValidationError("--count must not be negative") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        guard rate >= 0, rate.isFinite else { throw ValidationError("--rate must be 0 or positive") }
        if let simulatedRate, !(simulatedRate > 0 && simulatedRate.isFinite) { throw ValidationError("--simulated-rate must be positive") }
        if let partitions, partitions <= 0 { throw ValidationError("--partitions must be positive") }
    }

    func timeline() throws -> EventTimeline {
        let isPaced = rate > 0 || duration != nil
        switch timestamps {
        case .wall: return .wallClock
        case .auto where isPaced: return .wallClock
        case .auto, .simulated:
            do {
                return .simulated(start: try TemporalText.parseTimestamp(startTime, withZone: true))
            } catch {
                throw ValidationError("--start-time: \(error.message)")
            }
        }
    }

    /// Runs `generator` into the output the options name, and reports on standard error.
    func run<Generator: EventGenerator>(_ name: String, _ generator: inout Generator, defaultTopic: String) throws {
        let run = GenRun(name: name, count: count, duration: duration, rate: rate, quiet: quiet)
        if let output {
            var sink = try NDJSONFileOutput(path: output)
            try run.drive(&generator, into: &sink, destination: output == "-" ? "standard output" : output)
        } else {
            let topic = self.topic ?? defaultTopic
            var sink: KafkaGenOutput
            do {
                sink = try KafkaGenOutput(bootstrap: bootstrap, topic: topic, partitions: partitions)
            } catch let error as KafkaGenOutputError {
                throw fail(error.description)
            }
            try run.drive(&generator, into: &sink, destination: "topic \(topic) (\(sink.partitionCount) partitions) at \(bootstrap)")
        }
    }
}
