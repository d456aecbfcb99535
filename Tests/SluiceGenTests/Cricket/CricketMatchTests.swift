import Testing
@testable import SluiceGen

/// Seed 003's generated matches: the same seed gives the same matches, every match has two
/// teams of eleven and two (four for some Tests) innings, and its three shapes carry them.
@Suite("Cricket matches")
struct CricketMatchTests {
    @Test func theSameSeedGivesTheSameMatches() {
        var first = CricketMatchGenerator(seed: 3)
        var second = CricketMatchGenerator(seed: 3)
        for format in CricketMatch.Format.allCases + CricketMatch.Format.allCases {
            #expect(first.next(format) == second.next(format))
        }
        var other = CricketMatchGenerator(seed: 4)
        var again = CricketMatchGenerator(seed: 3)
        #expect(other.next(.t20) != again.next(.t20))
    }

    @Test func everyMatchIsComplete() {
        var generator = CricketMatchGenerator(seed: 11)
        for round in 0 ..< 300 {
            let format = CricketMatch.Format.allCases[round % 3]
            let match = generator.next(format)
            #expect(match.id == "\(format.rawValue.lowercased())-11-\(round / 3 + 1)")
            #expect(match.teams.count == 2 && match.teams[0] != match.teams[1])
            #expect(match.players.map(\.count) == [11, 11] && Set(match.players.joined()).count == 22)
            #expect(format == .test ? [2, 4].contains(match.innings.count) : match.innings.count == 2)
            #expect(match.innings.map(\.number) == Array(1 ... match.innings.count))
            #expect(match.innings.allSatisfy { $0.wickets <= 10 && Double($0.overs)! < Double(format.overLimit) })
            #expect(match.odiCSVLine.hasSuffix("\n") && match.odiCSVLine.hasPrefix(match.id + ","))
        }
    }

    @Test func datesCountFrom2019() {
        #expect(CricketMatchGenerator.date(daysAfter2019: 0) == "2019-01-01")
        #expect(CricketMatchGenerator.date(daysAfter2019: 59) == "2019-03-01")
        #expect(CricketMatchGenerator.date(daysAfter2019: 424) == "2020-02-29")
        #expect(CricketMatchGenerator.date(daysAfter2019: 1499) == "2023-02-08")
    }

    @Test func shapesQuoteWhatNeedsIt() {
        #expect(CricketMatch.quoted("Lord's \"home\"\n") == #""Lord's \"home\"\n""#)
        let change = CricketMatch.mongoChange(operation: "d", document: nil, objectID: "65bc")
        #expect(change.key == #"{"schema": null, "payload": {"id": "{\"$oid\": \"65bc\"}"}}"#)
        #expect(change.value.contains(#""after": null"#) && change.value.contains(#""op": "d""#))
    }
}

