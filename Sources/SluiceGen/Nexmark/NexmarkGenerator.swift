import SluiceCore

/// Nexmark's person, auction and bid events (`NexmarkModel` has the id arithmetic).
///
/// Output, one JSON object a line:
/// - `kind: .all` — every event, as one topic in the layout of RisingWave's nexmark-bench
///   `CREATE SOURCE nexmark (event_type BIGINT, person STRUCT<…>, auction STRUCT<…>,
///   bid STRUCT<…>)` and Nexmark's Flink `ddl_kafka.sql`: `event_type` 0 (person), 1 (auction)
///   or 2 (bid), the event in the member of that name and the other two `null`:
///   `{"event_type":2,"person":null,"auction":null,"bid":{"auction":1000,…}}`.
/// - `kind: .person`, `.auction` or `.bid` — only that kind, flat, for one topic per kind
///   (RisingWave's `nexmark-person`, `nexmark-auction`, `nexmark-bid` sources):
///   `{"auction":1000,"bidder":1001,"price":2500,"channel":"Google","url":"…","date_time":"…","extra":"…"}`.
///   The events are those of the full stream (same ids and values), with the other kinds left out.
///
/// Fields are RisingWave's names: person {id, name, email_address, credit_card, city, state,
/// date_time, extra}; auction {id, item_name, description, initial_bid, reserve, date_time,
/// expires, seller, category, extra}; bid {auction, bidder, price, channel, url, date_time,
/// extra}. Times are `YYYY-MM-DD HH:MM:SS.mmm` (UTC) as nexmark-bench writes them. Records have
/// no key.
///
/// Event `n` is timed `start + n / eventsPerSecond` (Nexmark's `timestampForEvent`, default
/// rate 10,000 a second) on a simulated timeline, and at generation on the wall clock. Each
/// event's values come from its own random stream (seed and event number), as nexmark-bench
/// seeds one generator per event.
package struct NexmarkGenerator: EventGenerator {
    package enum Kind: String, Sendable, CaseIterable {
        case person, auction, bid, all
    }

    package struct Configuration: Sendable {
        package var seed: UInt64 = 42
        package var kind = Kind.all
        package var model = NexmarkModel()
        package var timeline = EventTimeline.standard
        /// Nexmark's `firstEventRate`.
        package var eventsPerSecond = 10_000.0

        package init() {}
    }

    static let states: [StaticString] = ["AZ", "CA", "ID", "OR", "WA", "WY"]
    static let cities: [StaticString] = [
        "Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne",
    ]
    static let firstNames: [StaticString] = ["Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"]
    static let lastNames: [StaticString] = ["Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"]
    static let hotChannels: [StaticString] = ["Google", "Facebook", "Baidu", "Apple"]
    /// Bids come through a hot channel half the time, else one of this many numbered channels.
    static let channelCount = 10_000

    package let configuration: Configuration
    private var model: NexmarkModel { configuration.model }
    /// The next event number of the full stream.
    package private(set) var eventNumber: Int64 = 0
    private let startMicroseconds: Int64
    private let isWallClock: Bool
    private let microsecondsPerEvent: Double
    private let hotURLs: [[UInt8]]

    package init(_ configuration: Configuration) {
        self.configuration = configuration
        switch configuration.timeline {
        case .simulated(let start):
            startMicroseconds = start
            isWallClock = false
        case .wallClock:
            startMicroseconds = 0
            isWallClock = true
        }
        microsecondsPerEvent = 1_000_000 / max(configuration.eventsPerSecond, 1e-6)
        var urls: [[UInt8]] = []
        for index in 0 ..< Self.hotChannels.count {
            let url = ByteWriter(capacity: 64)
            var random = NexmarkRandom(SplitMix64.stream(seed: configuration.seed ^ 0x4E45_584D_4152_4B48, UInt64(index)))
            Self.writeBaseURL(&random, into: url)
            urls.append(url.array)
        }
        hotURLs = urls
    }

    /// Event `n`'s time in milliseconds on the simulated timeline.
    private func simulatedMilliseconds(_ number: Int64) -> Int64 {
        startMicroseconds / 1000 + Int64(Double(number) * microsecondsPerEvent) / 1000
    }

    package mutating func next(into event: GeneratedEvent) {
        var number = eventNumber
        if configuration.kind != .all {
            let wanted: NexmarkModel.EventKind
            switch configuration.kind {
            case .person: wanted = .person
            case .auction: wanted = .auction
            case .bid, .all: wanted = .bid
            }
            while model.kind(ofEvent: number) != wanted { number += 1 }
        }
        eventNumber = number + 1
        var random = NexmarkRandom(SplitMix64.stream(seed: configuration.seed, UInt64(number)))
        let milliseconds = isWallClock ? wallClockMicroseconds() / 1000 : simulatedMilliseconds(number)
        let out = event.value
        let kind = model.kind(ofEvent: number)
        if configuration.kind == .all {
            var wrapper = JSONObjectWriter(into: out)
            wrapper.int("event_type", kind.rawValue)
            wrapper.key("person")
            if kind == .person { writePerson(number, milliseconds, &random, into: out) } else { out.append("null") }
            wrapper.key("auction")
            if kind == .auction { writeAuction(number, milliseconds, &random, into: out) } else { out.append("null") }
            wrapper.key("bid")
            if kind == .bid { writeBid(number, milliseconds, &random, into: out) } else { out.append("null") }
            wrapper.close()
        } else {
            writeEvent(kind, number, milliseconds, &random, into: out)
        }
    }

    private func writeEvent(_ kind: NexmarkModel.EventKind, _ number: Int64, _ milliseconds: Int64, _ random: inout NexmarkRandom, into out: ByteWriter) {
        switch kind {
        case .person: writePerson(number, milliseconds, &random, into: out)
        case .auction: writeAuction(number, milliseconds, &random, into: out)
        case .bid: writeBid(number, milliseconds, &random, into: out)
        }
    }

    private func writePerson(_ number: Int64, _ milliseconds: Int64, _ random: inout NexmarkRandom, into out: ByteWriter) {
        var json = JSONObjectWriter(into: out)
        json.int("id", model.lastBase0PersonID(number) + NexmarkModel.firstPersonID)
        let first = Self.firstNames[random.nextInt(Self.firstNames.count)]
        let last = Self.lastNames[random.nextInt(Self.lastNames.count)]
        json.key("name")
        out.append(UInt8(ascii: "\""))
        out.append(first)
        out.append(UInt8(ascii: " "))
        out.append(last)
        out.append(UInt8(ascii: "\""))
        json.key("email_address")
        out.append(UInt8(ascii: "\""))
        var emailLength = random.writeString(maxLength: 7, into: out)
        out.append(UInt8(ascii: "@"))
        emailLength += random.writeString(maxLength: 5, into: out) + 5
        out.append(".com\"")
        json.key("credit_card")
        out.append(UInt8(ascii: "\""))
        for group in 0 ..< 4 {
            if group > 0 { out.append(UInt8(ascii: " ")) }
            out.appendPadded(random.nextInt(10_000), width: 4)
        }
        out.append(UInt8(ascii: "\""))
        let city = Self.cities[random.nextInt(Self.cities.count)]
        let state = Self.states[random.nextInt(Self.states.count)]
        json.string("city", literal: city)
        json.string("state", literal: state)
        json.timestamp("date_time", milliseconds * 1000, .sqlMillis)
        let size = 8 + first.utf8CodeUnitCount + 1 + last.utf8CodeUnitCount + emailLength + 19
            + city.utf8CodeUnitCount + state.utf8CodeUnitCount
        writeExtra(size: size, average: model.avgPersonByteSize, &random, json: &json)
        json.close()
    }

    private func writeAuction(_ number: Int64, _ milliseconds: Int64, _ random: inout NexmarkRandom, into out: ByteWriter) {
        var json = JSONObjectWriter(into: out)
        json.int("id", model.lastBase0AuctionID(number) + NexmarkModel.firstAuctionID)
        json.key("item_name")
        out.append(UInt8(ascii: "\""))
        let nameLength = random.writeString(maxLength: 20, into: out)
        out.append(UInt8(ascii: "\""))
        json.key("description")
        out.append(UInt8(ascii: "\""))
        let descriptionLength = random.writeString(maxLength: 100, into: out)
        out.append(UInt8(ascii: "\""))
        let initialBid = random.nextPrice()
        json.int("initial_bid", initialBid)
        json.int("reserve", initialBid + random.nextPrice())
        json.timestamp("date_time", milliseconds * 1000, .sqlMillis)
        json.timestamp("expires", (milliseconds + auctionLength(number, &random)) * 1000, .sqlMillis)
        var seller: Int64
        if random.nextInt(model.hotSellersRatio) > 0 {
            seller = model.lastBase0PersonID(number) / NexmarkModel.hotBatch * NexmarkModel.hotBatch
        } else {
            seller = model.nextBase0PersonID(number, &random)
        }
        json.int("seller", seller + NexmarkModel.firstPersonID)
        json.int("category", NexmarkModel.firstCategoryID + Int64(random.nextInt(NexmarkModel.categoryCount)))
        writeExtra(size: 8 + nameLength + descriptionLength + 40, average: model.avgAuctionByteSize, &random, json: &json)
        json.close()
    }

    /// `nextAuctionLengthMs`: uniform up to twice the time until `numInFlightAuctions` more
    /// auctions have been created, so about that many are open at once.
    private func auctionLength(_ number: Int64, _ random: inout NexmarkRandom) -> Int64 {
        let eventsForAuctions = Int64(model.numInFlightAuctions) * model.totalProportion / Int64(model.auctionProportion)
        let horizon = simulatedMilliseconds(number + eventsForAuctions) - simulatedMilliseconds(number)
        return 1 + random.nextLong(max(horizon * 2, 1))
    }

    private func writeBid(_ number: Int64, _ milliseconds: Int64, _ random: inout NexmarkRandom, into out: ByteWriter) {
        var json = JSONObjectWriter(into: out)
        var auction: Int64
        if random.nextInt(model.hotAuctionRatio) > 0 {
            auction = model.lastBase0AuctionID(number) / NexmarkModel.hotBatch * NexmarkModel.hotBatch
        } else {
            auction = model.nextBase0AuctionID(number, &random)
        }
        json.int("auction", auction + NexmarkModel.firstAuctionID)
        var bidder: Int64
        if random.nextInt(model.hotBiddersRatio) > 0 {
            // The second person of the batch, so hot bidders and hot sellers differ. Nexmark
            // may name person 1 while only person 0 exists; without leads, stay on the newest.
            let newest = model.lastBase0PersonID(number)
            bidder = newest / NexmarkModel.hotBatch * NexmarkModel.hotBatch + 1
            if model.idLead == 0 { bidder = min(bidder, newest) }
        } else {
            bidder = model.nextBase0PersonID(number, &random)
        }
        json.int("bidder", bidder + NexmarkModel.firstPersonID)
        json.int("price", random.nextPrice())
        if random.nextInt(2) > 0 {
            let index = random.nextInt(Self.hotChannels.count)
            json.string("channel", literal: Self.hotChannels[index])
            json.key("url")
            out.append(UInt8(ascii: "\""))
            out.append(hotURLs[index])
            out.append(UInt8(ascii: "\""))
        } else {
            let channel = random.nextInt(Self.channelCount)
            json.key("channel")
            out.append("\"channel-")
            out.appendDecimal(channel)
            out.append(UInt8(ascii: "\""))
            json.key("url")
            out.append(UInt8(ascii: "\""))
            writeChannelURL(channel, into: out)
            out.append(UInt8(ascii: "\""))
        }
        json.timestamp("date_time", milliseconds * 1000, .sqlMillis)
        writeExtra(size: 32, average: model.avgBidByteSize, &random, json: &json)
        json.close()
    }

    private func writeExtra(size: Int, average: Int, _ random: inout NexmarkRandom, json: inout JSONObjectWriter) {
        json.key("extra")
        json.out.append(UInt8(ascii: "\""))
        random.writeExtra(currentSize: size, averageSize: average, into: json.out)
        json.out.append(UInt8(ascii: "\""))
    }

    /// `https://www.nexmark.com/<a>/<b>/<c>/item.htm?query=1`, each part a short random string
    /// with `_` for spaces (`BidGenerator.getBaseUrl`).
    private static func writeBaseURL(_ random: inout NexmarkRandom, into out: ByteWriter) {
        out.append("https://www.nexmark.com/")
        for _ in 0 ..< 3 {
            random.writeString(maxLength: 5, delimiter: UInt8(ascii: "_"), into: out)
            out.append(UInt8(ascii: "/"))
        }
        out.append("item.htm?query=1")
    }

    /// A numbered channel's URL, the same for every bid through it: a base URL and, for nine
    /// in ten channels, `&channel_id=` and the channel number's bits reversed.
    private func writeChannelURL(_ channel: Int, into out: ByteWriter) {
        var random = NexmarkRandom(SplitMix64.stream(seed: configuration.seed ^ 0x4348_414E_4E45_4C53, UInt64(channel)))
        Self.writeBaseURL(&random, into: out)
        if random.nextInt(10) > 0 {
            out.append("&channel_id=")
            out.appendDecimal(abs(Int64(Int32(truncatingIfNeeded: channel).bitReversed)))
        }
    }
}

extension Int32 {
    /// The bits in reverse order (Java's `Integer.reverse`).
    var bitReversed: Int32 {
        var value = UInt32(bitPattern: self)
        var result: UInt32 = 0
        for _ in 0 ..< 32 {
            result = result << 1 | value & 1
            value >>= 1
        }
        return Int32(bitPattern: result)
    }
}
