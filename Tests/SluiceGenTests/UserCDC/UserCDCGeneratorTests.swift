import Testing

@testable import SluiceGen

@Suite struct UserCDCGeneratorTests {
    private func events(seed: UInt64 = 42, users: Int = 3, count: Int) -> [Event] {
        var configuration = UserCDCGenerator.Configuration()
        configuration.seed = seed
        configuration.users = users
        var generator = UserCDCGenerator(configuration)
        return generate(&generator, count: count)
    }

    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        #expect(ndjson(events(count: 1000)) == ndjson(events(count: 1000)))
        #expect(ndjson(events(count: 1000)) != ndjson(events(seed: 43, count: 1000)))
    }

    @Test func linesHaveProducerPysShape() throws {
        for event in events(count: 500) {
            let json = try #require(event.json, "not JSON: \(event.text)")
            #expect(json.keys == ["id", "name", "age", "op", "event_order", "ts"])
            let op = try #require(json["op"]?.string)
            #expect(["insert", "update", "delete"].contains(op))
            let types = json.keys.map { JSONType(json[$0]!) }
            if op == "delete" {
                #expect(types == [.integer, .null, .null, .string, .integer, .string])
            } else {
                #expect(types == [.integer, .string, .integer, .string, .integer, .string])
            }
            #expect(event.keyText == json["id"]?.integer.map(String.init))
            #expect(json["ts"]?.string?.hasSuffix("+00:00") == true)
        }
        #expect(events(count: 1)[0].text.hasPrefix(#"{"id": "#))
    }

    /// Replays the history into a table: inserts only of absent ids, updates and deletes only
    /// of present ones, event_order 1, 2, 3, … — for a few population sizes.
    @Test(arguments: [1, 3, 50])
    func historyIsConsistent(users: Int) throws {
        var table: [Int64: (name: String, age: Int64)] = [:]
        var counts: [String: Int] = [:]
        for (index, event) in events(users: users, count: 20_000).enumerated() {
            let json = try #require(event.json)
            let id = try #require(json["id"]?.integer)
            let op = try #require(json["op"]?.string)
            #expect(json["event_order"]?.integer == Int64(index + 1))
            #expect((1 ... Int64(users)).contains(id))
            counts[op, default: 0] += 1
            switch op {
            case "insert":
                #expect(table[id] == nil, "insert of present id \(id) at \(index + 1)")
                table[id] = (try #require(json["name"]?.string), try #require(json["age"]?.integer))
            case "update":
                let before = try #require(table[id], "update of absent id \(id) at \(index + 1)")
                let name = try #require(json["name"]?.string)
                let age = try #require(json["age"]?.integer)
                // An update ages the user a year or renames them.
                #expect((age == before.age + 1 && name == before.name) || age == before.age)
                table[id] = (name, age)
            default:
                #expect(table.removeValue(forKey: id) != nil, "delete of absent id \(id) at \(index + 1)")
            }
        }
        if users > 1 { #expect(counts.count == 3) }
    }

    @Test func theFirstThreeUsersAreProducerPys() throws {
        var seen: [Int64: (String, Int64)] = [:]
        for event in events(count: 200) {
            let json = try #require(event.json)
            guard json["op"]?.string == "insert", let id = json["id"]?.integer, seen[id] == nil else { continue }
            seen[id] = (json["name"]?.string ?? "", json["age"]?.integer ?? 0)
        }
        #expect(seen[1].map { $0 == ("Alice", 25) } == true)
        #expect(seen[2].map { $0 == ("Bob", 30) } == true)
        #expect(seen[3].map { $0 == ("Charlie", 36) } == true)
    }
}
