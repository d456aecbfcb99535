import SluiceCore

/// One cricket match of seed 003: its metadata, both teams' players and its innings summed up
/// (runs, wickets, overs), as the seed's three datasets hold them (cricsheet's T20 JSON, ODI CSV
/// and Test YAML).
package struct CricketMatch: Sendable, Equatable {
    package enum Format: String, Sendable, CaseIterable {
        case odi = "ODI"
        case t20 = "T20"
        case test = "Test"

        /// The overs an innings may last (a Test has no limit; 150 bounds the generator).
        var overLimit: Int {
            switch self {
            case .odi: 50
            case .t20: 20
            case .test: 150
            }
        }
    }

    package struct Innings: Sendable, Equatable {
        /// 1 to 4, in the order played.
        package var number: Int
        package var team: String
        package var runs: Int
        package var wickets: Int
        /// Overs as cricket writes them: whole overs, then the balls of the next (`19.4`).
        package var overs: String
    }

    package var id: String
    package var format: Format
    /// The home team first.
    package var teams: [String]
    package var venue: String
    /// `yyyy-mm-dd`.
    package var date: String
    /// Eleven players of each team, in the order of ``teams``.
    package var players: [[String]]
    package var innings: [Innings]
    /// The team with more runs; nil for a tie.
    package var winner: String?
}

/// Deterministic cricket matches: the same seed gives the same matches of each format, in turn.
package struct CricketMatchGenerator: Sendable {
    private static let teams = [
        "India", "Australia", "England", "South Africa", "New Zealand", "Pakistan", "Sri Lanka", "West Indies", "Bangladesh", "Afghanistan",
    ]
    private static let venues = [
        "Eden Gardens", "Melbourne Cricket Ground", "Lord's", "Newlands", "Basin Reserve", "Gaddafi Stadium", "R Premadasa Stadium",
    ]
    private static let surnames = [
        "Sharma", "Smith", "Root", "de Kock", "Williamson", "Azam", "Mendis", "Holder", "Hasan", "Khan", "Patel", "Starc",
        "Broad", "Rabada", "Boult", "Afridi", "Perera", "Joseph", "Rahim", "Rashid", "Kohli", "Cummins", "Stokes", "Markram",
    ]

    private var random: SplitMix64
    private let seed: UInt64
    private var counts: [CricketMatch.Format: Int] = [:]

    package init(seed: UInt64) {
        self.seed = seed
        random = SplitMix64(seed: seed)
    }

    /// The next match of `format`; its id is `<format>-<seed>-<n>`.
    package mutating func next(_ format: CricketMatch.Format) -> CricketMatch {
        let number = (counts[format] ?? 0) + 1
        counts[format] = number
        let home = Self.teams[random.next(below: Self.teams.count)]
        var away = Self.teams[random.next(below: Self.teams.count - 1)]
        if away == home { away = Self.teams[Self.teams.count - 1] }
        let teams = [home, away]
        let players = teams.map { team in
            (0 ..< 11).map { index in
                "\(Character(UnicodeScalar(UInt8(65 + index)))) \(Self.surnames[random.next(below: Self.surnames.count)])-\(team.prefix(3))\(index)"
            }
        }
        let inningsCount = format == .test && random.next(below: 10) < 7 ? 4 : 2
        let limit = format.overLimit
        let innings = (0 ..< inningsCount).map { index in
            CricketMatch.Innings(
                number: index + 1, team: teams[index % 2], runs: 60 + random.next(below: 361), wickets: random.next(below: 11),
                overs: "\(limit / 2 + random.next(below: limit - limit / 2)).\(random.next(below: 6))")
        }
        let homeRuns = innings.filter { $0.team == home }.reduce(0) { $0 + $1.runs }
        let awayRuns = innings.filter { $0.team == away }.reduce(0) { $0 + $1.runs }
        let winner: String? = homeRuns == awayRuns ? nil : homeRuns > awayRuns ? home : away
        return CricketMatch(
            id: "\(format.rawValue.lowercased())-\(seed)-\(number)", format: format, teams: teams,
            venue: Self.venues[random.next(below: Self.venues.count)], date: Self.date(daysAfter2019: random.next(below: 1500)),
            players: players, innings: innings, winner: winner)
    }

    /// `yyyy-mm-dd` of the day `days` after 2019-01-01 (the proleptic Gregorian calendar).
    static func date(daysAfter2019 days: Int) -> String {
        // Howard Hinnant's civil_from_days, from 1970-01-01; 2019-01-01 is day 17,897.
        let z = days + 17_897 + 719_468
        let era = z / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}
