import SluiceCore

/// Seed 002's game events, as its game API logs them to Kafka (tests/fixtures/seed_002/
/// game_api.py): the action's fields and the request's Host, Accept and User-Agent headers, in
/// `json.dumps` spacing:
///
///     {"event_type": "purchase_sword", "user": "user1", "price": 15, "type": "broadsword", "Host": "user1.comcast.com", "Accept": "*/*", "User-Agent": "ApacheBench/2.3"}
///
/// The mix follows the seed's generate_events.sh round: of every 24 calls, 2 default events, 8
/// sword purchases, 6 guild joins, 1 guild quit and 7 paydays, by users with their Host headers.
/// Events carry no timestamp (Kafka's is the event time); the clock paces them.
package struct GameAPIGenerator: EventGenerator {
    package struct Configuration: Sendable {
        package var seed: UInt64 = 42
        package var timeline = EventTimeline.standard
        package var eventsPerSecond = 24.0
        /// Users, each `user<n>` with a Host of their own.
        package var users = 5

        package init() {}
    }

    private static let providers: [StaticString] = ["comcast.com", "att.com", "verizon.com", "spectrum.net", "cox.net"]
    private static let swords: [StaticString] = ["broadsword", "dagger", "katana", "claymore", "rapier"]
    private static let guilds: [StaticString] = ["dragonslayers", "knights", "rangers", "mages"]
    /// One generate_events.sh round's calls: 0 default, 1 sword, 2 join, 3 quit, 4 payday.
    private static let round: [UInt8] = [0, 0] + [UInt8](repeating: 1, count: 8) + [UInt8](repeating: 2, count: 6) + [3] + [UInt8](repeating: 4, count: 7)

    private var random: SplitMix64
    private var clock: EventClock
    private let users: Int

    package init(_ configuration: Configuration) {
        random = SplitMix64(seed: configuration.seed)
        clock = EventClock(configuration.timeline, eventsPerSecond: configuration.eventsPerSecond)
        users = max(configuration.users, 1)
    }

    package mutating func next(into event: GeneratedEvent) {
        _ = clock.next(using: &random)
        let user = 1 + random.next(below: users)
        let action = Self.round[random.next(below: Self.round.count)]
        var json = JSONObjectWriter(into: event.value, style: .python)
        let name = "user\(user)"
        switch action {
        case 0:
            json.string("event_type", literal: "default")
        case 1:
            json.string("event_type", literal: "purchase_sword")
            json.string("user", name)
            json.int("price", 5 + random.next(below: 20))
            json.string("type", literal: Self.swords[random.next(below: Self.swords.count)])
        case 2, 3:
            json.string("event_type", literal: action == 2 ? "join_guild" : "quit_guild")
            json.string("user", name)
            json.string("name", literal: Self.guilds[random.next(below: Self.guilds.count)])
        default:
            json.string("event_type", literal: "get_paid")
            json.string("user", name)
            json.int("amount", 50 + random.next(below: 150))
            json.int("fee", 1 + random.next(below: 9))
        }
        json.string("Host", "\(name).\(Self.providers[(user - 1) % Self.providers.count])")
        json.string("Accept", literal: "*/*")
        json.string("User-Agent", literal: "ApacheBench/2.3")
        json.close()
    }
}
