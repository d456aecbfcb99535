import SluiceCore
import Testing

@testable import SluiceGen

@Suite struct NexmarkGeneratorTests {
    private func events(seed: UInt64 = 42, kind: NexmarkGenerator.Kind = .all, idLead: Int = 10, count: Int) -> [Event] {
        var configuration = NexmarkGenerator.Configuration()
        configuration.seed = seed
        configuration.kind = kind
        configuration.model.idLead = idLead
        var generator = NexmarkGenerator(configuration)
        return generate(&generator, count: count)
    }

    static let personKeys = ["id", "name", "email_address", "credit_card", "city", "state", "date_time", "extra"]
    static let auctionKeys = ["id", "item_name", "description", "initial_bid", "reserve", "date_time", "expires", "seller", "category", "extra"]
    static let bidKeys = ["auction", "bidder", "price", "channel", "url", "date_time", "extra"]

    @Test func sameSeedSameBytesOtherSeedOtherBytes() {
        #expect(ndjson(events(count: 2000)) == ndjson(events(count: 2000)))
        #expect(ndjson(events(count: 2000)) != ndjson(events(seed: 43, count: 2000)))
    }

    @Test func eventsAreNestedUnderTheirTypeInProportion() throws {
        var counts = [0, 0, 0]
        for (number, event) in events(count: 5000).enumerated() {
            let json = try #require(event.json, "not JSON: \(event.text)")
            #expect(event.key == nil)
            #expect(json.keys == ["event_type", "person", "auction", "bid"])
            let type = Int(try #require(json["event_type"]?.integer))
            // Within each block of 50: one person, three auctions, 46 bids.
            #expect(type == (number % 50 == 0 ? 0 : number % 50 < 4 ? 1 : 2))
            counts[type] += 1
            let members = ["person", "auction", "bid"]
            for (index, member) in members.enumerated() {
                #expect(json[member]?.isNull == (index != type))
            }
            let inner = try #require(json[members[type]])
            #expect(inner.keys == [Self.personKeys, Self.auctionKeys, Self.bidKeys][type])
            for key in inner.keys {
                let isNumber = ["id", "initial_bid", "reserve", "seller", "category", "auction", "bidder", "price"].contains(key)
                #expect(JSONType(inner[key]!) == (isNumber ? .integer : .string), "\(key)")
            }
            #expect(inner["date_time"]?.string?.count == 23)
        }
        #expect(counts == [100, 300, 4600])
    }

    @Test func timestampsFollowTheEventRate() throws {
        let all = events(count: 20_005)
        let first = try TemporalText.parseTimestamp(try #require(all[0].json?["person"]?["date_time"]?.string), withZone: true)
        let last = try TemporalText.parseTimestamp(try #require(all[20_004].json?["bid"]?["date_time"]?.string), withZone: true)
        // 10,000 events a second: event 20,004 is 2,000.4 ms on, written to the millisecond.
        #expect(first == 1_735_689_600_000_000)
        #expect(last - first == 2_000_000)
    }

    /// Persons and auctions count up from 1000 without gaps; every reference is to one already
    /// generated (without leads) or at most `idLead` ahead (Nexmark's default 10).
    @Test(arguments: [0, 10])
    func idsReferenceExistingPeopleAndAuctions(idLead: Int) throws {
        var lastPerson: Int64 = 999
        var lastAuction: Int64 = 999
        var hotAuctionBids = 0
        var hotBidderBids = 0
        var bids = 0
        for event in events(idLead: idLead, count: 50_000) {
            let json = try #require(event.json)
            if let person = json["person"], !person.isNull {
                #expect(person["id"]?.integer == lastPerson + 1)
                lastPerson += 1
            } else if let auction = json["auction"], !auction.isNull {
                #expect(auction["id"]?.integer == lastAuction + 1)
                lastAuction += 1
                let seller = try #require(auction["seller"]?.integer)
                #expect(seller >= 1000 && seller <= lastPerson + Int64(idLead), "seller \(seller), newest person \(lastPerson)")
                let category = try #require(auction["category"]?.integer)
                #expect((10 ..< 15).contains(category))
                #expect(try #require(auction["reserve"]?.integer) >= (try #require(auction["initial_bid"]?.integer)))
            } else {
                let bid = try #require(json["bid"])
                let auction = try #require(bid["auction"]?.integer)
                let bidder = try #require(bid["bidder"]?.integer)
                #expect(auction >= 1000 && auction <= lastAuction + Int64(idLead), "auction \(auction), newest \(lastAuction)")
                #expect(bidder >= 1000 && bidder <= lastPerson + Int64(idLead), "bidder \(bidder), newest person \(lastPerson)")
                let price = try #require(bid["price"]?.integer)
                #expect(price >= 100 && price <= 100_000_000)
                bids += 1
                if auction % 100 == 0 { hotAuctionBids += 1 }
                if bidder % 100 == 1 { hotBidderBids += 1 }
            }
        }
        // Hot auctions take half the bids (hotAuctionRatio 2), hot bidders three quarters (4).
        let hotAuctionShare = Double(hotAuctionBids) / Double(bids)
        let hotBidderShare = Double(hotBidderBids) / Double(bids)
        #expect(hotAuctionShare > 0.48 && hotAuctionShare < 0.56, "\(hotAuctionShare)")
        #expect(hotBidderShare > 0.73 && hotBidderShare < 0.79, "\(hotBidderShare)")
    }

    @Test(arguments: [NexmarkGenerator.Kind.person, .auction, .bid])
    func oneKindIsTheFullStreamsEventsOfThatKind(kind: NexmarkGenerator.Kind) throws {
        let nested = try events(count: 5000).compactMap { event -> JSONValue? in
            let json = try #require(event.json)
            let member = json["\(kind.rawValue)"]
            return member?.isNull == false ? member : nil
        }
        let flat = events(kind: kind, count: nested.count).map(\.json)
        #expect(flat == nested)
    }

    @Test func channelsAndURLsAreStablePerChannel() throws {
        var urls: [String: String] = [:]
        for event in events(kind: .bid, count: 20_000) {
            let bid = try #require(event.json)
            let channel = try #require(bid["channel"]?.string)
            let url = try #require(bid["url"]?.string)
            #expect(url.hasPrefix("https://www.nexmark.com/"))
            if let seen = urls[channel] { #expect(seen == url, "\(channel)") }
            urls[channel] = url
        }
        #expect(["Google", "Facebook", "Baidu", "Apple"].allSatisfy { urls[$0] != nil })
    }
}
