/// Seed 003's three data shapes of a match: an ODI as a CSV row of the upstream PostgreSQL
/// table, a T20 as a MongoDB document inside Debezium's change event, a Test as a cricsheet-style
/// YAML file.
extension CricketMatch {
    /// The columns of the upstream table `odi_matches`, in ``odiCSVLine``'s order.
    package static let odiColumns = [
        "match_id", "match_date", "venue", "team_1", "team_2", "team_1_players", "team_2_players", "team_1_runs", "team_1_wickets",
        "team_1_overs", "team_2_runs", "team_2_wickets", "team_2_overs", "winner",
    ]

    /// The match as one CSV record (RFC 4180, ending in a newline) of ``odiColumns``: players
    /// joined by `;`, the first two innings, an empty winner for a tie.
    package var odiCSVLine: String {
        func field(_ text: String) -> String {
            text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + text.replacing("\"", with: "\"\"") + "\"" : text
        }
        let first = innings[0]
        let second = innings[1]
        let fields = [
            id, date, venue, teams[0], teams[1], players[0].joined(separator: ";"), players[1].joined(separator: ";"), String(first.runs),
            String(first.wickets), first.overs, String(second.runs), String(second.wickets), second.overs, winner ?? "",
        ]
        return fields.map(field).joined(separator: ",") + "\n"
    }

    /// The match as a MongoDB document in relaxed extended JSON, cricsheet's JSON layout with
    /// its innings summed up: `{"_id": {"$oid": …}, "match_id": …, "info": {…}, "innings": […]}`.
    package func mongoDocument(objectID: String) -> String {
        let playerLists = zip(teams, players).map { team, names in "\(Self.quoted(team)): [\(names.map(Self.quoted).joined(separator: ", "))]" }
        let outcome = winner.map { "{\"winner\": \(Self.quoted($0))}" } ?? "{\"result\": \"tie\"}"
        let inningsList = innings.map { inning in
            "{\"number\": \(inning.number), \"team\": \(Self.quoted(inning.team)), \"runs\": \(inning.runs), \"wickets\": \(inning.wickets), \"overs\": \(inning.overs)}"
        }
        return """
            {"_id": {"$oid": \(Self.quoted(objectID))}, "match_id": \(Self.quoted(id)), "info": {"match_type": \(Self.quoted(format.rawValue)), \
            "teams": [\(teams.map(Self.quoted).joined(separator: ", "))], "venue": \(Self.quoted(venue)), "dates": [\(Self.quoted(date))], \
            "players": {\(playerLists.joined(separator: ", "))}, "outcome": \(outcome)}, "innings": [\(inningsList.joined(separator: ", "))]}
            """
    }

    /// Debezium's MongoDB connector's message for a change of the document with id `objectID`:
    /// the key `{"id": "{\"$oid\": …}"}` and the event, `after` the document as a string (nil,
    /// a delete). Both with Kafka Connect's schema wrapper, its schema left out.
    package static func mongoChange(operation: Character, document: String?, objectID: String) -> (key: String, value: String) {
        let key = "{\"schema\": null, \"payload\": {\"id\": \(quoted("{\"$oid\": \(quoted(objectID))}"))}}"
        let value = """
            {"schema": null, "payload": {"before": null, "after": \(document.map(quoted) ?? "null"), "updateDescription": null, \
            "source": {"version": "2.5.0.Final", "connector": "mongodb", "name": "atlas", "db": "cricket", "collection": "t20_matches", \
            "rs": "atlas-0"}, "op": \(quoted(String(operation))), "ts_ms": 1700000000000}}
            """
        return (key, value)
    }

    /// The match as a cricsheet-style YAML document: `match_id`, `meta`, `info` (teams, venue,
    /// dates, players by team, outcome) and `innings` as a list of `{"1st innings": {…}}`.
    package var testYAML: String {
        let names = ["1st innings", "2nd innings", "3rd innings", "4th innings"]
        var lines = [
            "match_id: \(Self.quoted(id))", "meta:", "  data_version: 0.9", "  revision: 1", "info:", "  match_type: \(Self.quoted(format.rawValue))",
            "  teams:",
        ]
        lines += teams.map { "    - \(Self.quoted($0))" }
        lines += ["  venue: \(Self.quoted(venue))", "  dates:", "    - \(Self.quoted(date))", "  players:"]
        for (team, names) in zip(teams, players) {
            lines.append("    \(Self.quoted(team)):")
            lines += names.map { "      - \(Self.quoted($0))" }
        }
        lines += ["  outcome:", winner.map { "    winner: \(Self.quoted($0))" } ?? "    result: \"draw\"", "innings:"]
        for inning in innings {
            lines += [
                "  - \(Self.quoted(names[inning.number - 1])):", "      team: \(Self.quoted(inning.team))", "      runs: \(inning.runs)",
                "      wickets: \(inning.wickets)", "      overs: \(inning.overs)",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a JSON string literal (also a YAML double-quoted scalar).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
