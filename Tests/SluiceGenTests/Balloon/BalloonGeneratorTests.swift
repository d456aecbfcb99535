import SluiceCore
import Testing

@testable import SluiceGen

@Suite struct BalloonGeneratorTests {
    private func events(seed: UInt64 = 7, players: Int = 10, count: Int = 5000) -> [Event] {
        var configuration = BalloonGenerator.Configuration()
        configuration.seed = seed
        configuration.players = players
        var generator = BalloonGenerator(configuration)
        return generate(&generator, count: count)
    }

    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        #expect(ndjson(events(seed: 7)) == ndjson(events(seed: 7)))
        #expect(ndjson(events(seed: 7)) != ndjson(events(seed: 8)))
    }

    @Test func everyLineHasTheSourcesFieldsInOrderWithTheirTypes() throws {
        for event in events(count: 2000) {
            let json = try #require(event.json, "not JSON: \(event.text)")
            #expect(json.keys == ["player", "balloon_color", "score", "page_id", "favorite_color_bonus", "event_ts"])
            #expect(json.keys.map { JSONType(json[$0]!) } == [.string, .string, .integer, .integer, .bool, .string])
            #expect(event.keyText == json["player"]?.string)
            let timestamp = try #require(json["event_ts"]?.string)
            #expect(timestamp.count == 27 && timestamp.hasSuffix("Z") && timestamp.contains("T"))
        }
        // json.dumps spacing, as the demo's producer sends.
        #expect(events(count: 1)[0].text.hasPrefix(#"{"player": ""#))
    }

    @Test func scoresFollowTheDemosRules() throws {
        let points = Dictionary(uniqueKeysWithValues: BalloonGame.colors.map { ("\($0.name)", $0.points) } + [("black", 0)])
        var bonusColors: [String: Set<String>] = [:]
        var plainColors: [String: Set<String>] = [:]
        var bonusCount = 0
        let all = events(count: 20_000)
        for event in all {
            let json = try #require(event.json)
            let player = try #require(json["player"]?.string)
            let color = try #require(json["balloon_color"]?.string)
            let isBonus = try #require(json["favorite_color_bonus"]?.boolean)
            let base = try #require(points[color], "unknown color \(color)")
            #expect(json["score"]?.integer == Int64(base * (isBonus ? 2 : 1)))
            if isBonus {
                bonusColors[player, default: []].insert(color)
                bonusCount += 1
            } else {
                plainColors[player, default: []].insert(color)
            }
        }
        // Each player plays one character: at most two bonus colors, never popped without bonus.
        for (player, colors) in bonusColors {
            #expect(colors.count <= 2, "\(player): \(colors)")
            #expect(colors.isDisjoint(with: plainColors[player] ?? []), "\(player)")
        }
        // 15 % on purpose plus favorites hit by chance (2 of 11 colors of the other 85 %).
        let share = Double(bonusCount) / Double(all.count)
        #expect(share > 0.2 && share < 0.4, "bonus share \(share)")
    }

    @Test func playersAreDistinctAndAsMany() {
        var configuration = BalloonGenerator.Configuration()
        configuration.players = 60
        let generator = BalloonGenerator(configuration)
        #expect(Set(generator.players.map(\.name)).count == 60)
        #expect(generator.players.allSatisfy { (1 ... 10).contains($0.page) })
    }

    @Test func simulatedTimeAdvancesAtTheRate() throws {
        let all = events(count: 1001)
        let first = try TemporalText.parseTimestamp(try #require(all.first?.json?["event_ts"]?.string), withZone: true)
        let last = try TemporalText.parseTimestamp(try #require(all.last?.json?["event_ts"]?.string), withZone: true)
        #expect(first == 1_735_689_600_000_000)
        // 1,000 gaps averaging 100 ms.
        #expect(abs(Double(last - first) / 1e6 - 100) < 5)
    }
}
