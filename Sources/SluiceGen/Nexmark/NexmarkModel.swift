/// Nexmark's event model and id arithmetic, after the reference generator
/// (nexmark/nexmark `nexmark-flink/.../generator`: `GeneratorConfig`, `PersonGenerator`,
/// `AuctionGenerator`, `BidGenerator`, `NexmarkConfiguration`'s defaults).
///
/// Events are numbered 0, 1, 2, …; within each block of `personProportion + auctionProportion
/// + bidProportion` (1 + 3 + 46 = 50) numbers the first is a person, the next three auctions,
/// the rest bids. Ids are therefore functions of the event number: person ids and auction ids
/// count up from 1000 without gaps.
package struct NexmarkModel: Sendable {
    package var personProportion = 1
    package var auctionProportion = 3
    package var bidProportion = 46
    /// People a new auction's seller or a bid's bidder is drawn from, besides the hot ones.
    package var numActivePeople = 1000
    /// Recent auctions a bid may be for, besides the hot ones.
    package var numInFlightAuctions = 100
    /// Bids for a hot auction: all but 1 in `hotAuctionRatio`.
    package var hotAuctionRatio = 2
    /// Auctions by a hot seller: all but 1 in `hotSellersRatio`.
    package var hotSellersRatio = 4
    /// Bids by a hot bidder: all but 1 in `hotBiddersRatio`.
    package var hotBiddersRatio = 4
    package var avgPersonByteSize = 200
    package var avgAuctionByteSize = 500
    package var avgBidByteSize = 100
    /// How far past the newest person or auction a random reference may point
    /// (`PERSON_ID_LEAD`, `AUCTION_ID_LEAD`): Nexmark lets a bid name an auction that appears a
    /// little later. Zero keeps every reference to an entity already generated.
    package var idLead = 10

    package static let firstPersonID: Int64 = 1000
    package static let firstAuctionID: Int64 = 1000
    package static let firstCategoryID: Int64 = 10
    package static let categoryCount = 5
    /// Hot sellers, bidders and auctions are the first of each batch of this many.
    package static let hotBatch: Int64 = 100

    package init() {}

    package var totalProportion: Int64 {
        Int64(personProportion + auctionProportion + bidProportion)
    }

    package enum EventKind: Int, Sendable {
        case person = 0, auction = 1, bid = 2
    }

    package func kind(ofEvent eventNumber: Int64) -> EventKind {
        let offset = eventNumber % totalProportion
        if offset < Int64(personProportion) { return .person }
        if offset < Int64(personProportion + auctionProportion) { return .auction }
        return .bid
    }

    /// The newest person id (base 0) at `eventNumber`: the event's own when it is a person.
    package func lastBase0PersonID(_ eventNumber: Int64) -> Int64 {
        let epoch = eventNumber / totalProportion
        var offset = eventNumber % totalProportion
        if offset >= Int64(personProportion) { offset = Int64(personProportion) - 1 }
        return epoch * Int64(personProportion) + offset
    }

    /// The newest auction id (base 0) at `eventNumber` (-1 before the first auction).
    package func lastBase0AuctionID(_ eventNumber: Int64) -> Int64 {
        var epoch = eventNumber / totalProportion
        var offset = eventNumber % totalProportion
        if offset < Int64(personProportion) {
            epoch -= 1
            offset = Int64(auctionProportion) - 1
        } else if offset >= Int64(personProportion + auctionProportion) {
            offset = Int64(auctionProportion) - 1
        } else {
            offset -= Int64(personProportion)
        }
        return epoch * Int64(auctionProportion) + offset
    }

    /// A random person among the active ones, or up to `idLead` ahead (base 0).
    package func nextBase0PersonID(_ eventNumber: Int64, _ random: inout NexmarkRandom) -> Int64 {
        let people = lastBase0PersonID(eventNumber) + 1
        let active = min(people, Int64(numActivePeople))
        return people - active + random.nextLong(active + Int64(idLead))
    }

    /// A random auction among the in-flight ones, or up to `idLead` ahead (base 0).
    package func nextBase0AuctionID(_ eventNumber: Int64, _ random: inout NexmarkRandom) -> Int64 {
        let newest = lastBase0AuctionID(eventNumber)
        let oldest = max(newest - Int64(numInFlightAuctions), 0)
        return oldest + random.nextLong(newest - oldest + 1 + Int64(idLead))
    }
}
