import SluiceCore

/// Balloon pops for seed 000's `balloon_game_events` source:
///
///     {"player": "Lucky Star", "balloon_color": "red", "score": 200, "page_id": 3,
///      "favorite_color_bonus": true, "event_ts": "2025-01-01T00:00:00.000000Z"}
///
/// on one line, members in the order of the seed's `CREATE SOURCE`, spaced as Python's
/// `json.dumps` spaces them (the demo's producer serializes with it). The key is the player's
/// name, so one player's pops stay in order in one partition.
///
/// Rules, from the balloon-popper demo's generator (`BalloonGame`):
/// - each event is a pop by a player drawn uniformly from `players` players;
/// - with probability `bonusProbability` the color is one of the player's character's two
///   favorites, otherwise uniform over the 11 balloon colors;
/// - `favorite_color_bonus` is whether the color is one of the favorites, and the score is the
///   color's points, doubled when it is.
///
/// Differences from the demo, on purpose: each player keeps one character for the whole run
/// (the demo draws a character per pop, so a player's favorites change from pop to pop; the
/// game itself, kameshsampath/balloon-popper, has a player play as one character); player
/// names are distinct (the demo may draw the same name twice); and `page_id`, which the seed's
/// source declares but the demo never sends, is the game page the player plays on (1 to 10).
package struct BalloonGenerator: EventGenerator {
    package struct Configuration: Sendable {
        package var seed: UInt64 = 42
        package var players = 10
        package var bonusProbability = BalloonGame.defaultBonusProbability
        package var timeline = EventTimeline.standard
        /// The simulated timeline's mean rate. The demo sleeps `DELAY` = 1 s between pops of
        /// one producer; ten a second is a room of players.
        package var eventsPerSecond = 10.0

        package init() {}
    }

    /// A player: name, character (index into `BalloonGame.characters`) and page.
    package struct Player: Sendable {
        package let name: [UInt8]
        package let character: Int
        package let page: Int
    }

    package let players: [Player]
    private var random: SplitMix64
    private var clock: EventClock
    private let bonusProbability: Double

    package init(_ configuration: Configuration) {
        var random = SplitMix64(seed: configuration.seed)
        players = Self.makePlayers(count: max(configuration.players, 1), random: &random)
        self.random = random
        clock = EventClock(configuration.timeline, eventsPerSecond: configuration.eventsPerSecond)
        bonusProbability = configuration.bonusProbability
    }

    /// Distinct names: the 49 adjective-noun pairs in a seeded order, then the same pairs
    /// numbered 2, 3, … when more players are asked for.
    private static func makePlayers(count: Int, random: inout SplitMix64) -> [Player] {
        var pairs: [(Int, Int)] = []
        for adjective in BalloonGame.adjectives.indices {
            for noun in BalloonGame.nouns.indices { pairs.append((adjective, noun)) }
        }
        pairs.shuffle(using: &random)
        return (0 ..< count).map { index in
            let (adjective, noun) = pairs[index % pairs.count]
            var name = "\(BalloonGame.adjectives[adjective]) \(BalloonGame.nouns[noun])"
            if index >= pairs.count { name += " \(index / pairs.count + 1)" }
            return Player(
                name: Array(name.utf8), character: random.next(below: BalloonGame.characters.count),
                page: 1 + random.next(below: 10))
        }
    }

    package mutating func next(into event: GeneratedEvent) {
        let player = players[random.next(below: players.count)]
        let favorites = BalloonGame.characters[player.character].favorites
        let colorIndex: Int
        if random.chance(bonusProbability) {
            colorIndex = random.next(below: 2) == 0 ? favorites.0 : favorites.1
        } else {
            colorIndex = random.next(below: BalloonGame.colors.count)
        }
        let isFavorite = colorIndex == favorites.0 || colorIndex == favorites.1
        let time = clock.next(using: &random)

        event.key.append(player.name)
        event.hasKey = true
        var json = JSONObjectWriter(into: event.value, style: .python)
        json.string("player", player.name)
        json.string("balloon_color", literal: BalloonGame.color(at: colorIndex).name)
        json.int("score", BalloonGame.score(colorIndex: colorIndex, isFavorite: isFavorite))
        json.int("page_id", player.page)
        json.bool("favorite_color_bonus", isFavorite)
        json.timestamp("event_ts", time, .isoMicrosZ)
        json.close()
    }
}
