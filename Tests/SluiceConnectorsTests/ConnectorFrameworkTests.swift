import SluiceConnectors
import SluiceCore
import Testing

/// The connector framework's own rules: option checking with its SQLSTATEs and suggestions, and
/// file sources' match patterns.
@Suite struct ConnectorFrameworkTests {
    private let schema = ConnectorOptionSchema("the demo connector", [
        .text("topic", required: true), .integer("rollover_seconds", 1 ... 3600), .boolean("is_batched"),
        .choice("mode", ["earliest", "latest"]), .prefix("properties."),
    ])

    @Test func goodOptionsPass() throws {
        try schema.check(["topic": "t", "rollover_seconds": "10", "is_batched": "true", "mode": "LATEST", "properties.client.id": "x"])
    }

    @Test func mistakesAreNamedWithTheirSQLStates() {
        func failure(_ options: [String: String]) -> SluiceError? {
            do { try schema.check(options) } catch { return error }
            return nil
        }
        let misspelt = failure(["topic": "t", "rolover_seconds": "5"])
        #expect(misspelt?.code == .syntaxError && misspelt?.message == "unknown option \"rolover_seconds\" for the demo connector")
        #expect(misspelt?.hint?.hasPrefix("Did you mean \"rollover_seconds\"? The demo connector takes rollover_seconds,") == true)
        #expect(failure(["topic": "t", "batched": "true"])?.hint?.hasPrefix("Did you mean \"is_batched\"?") == true)
        #expect(failure(["rollover_seconds": "5"])?.code == .syntaxError)
        #expect(failure(["topic": "t", "rollover_seconds": "0"])?.code == .invalidParameterValue)
        #expect(failure(["topic": "t", "rollover_seconds": "soon"])?.message.contains("rollover_seconds") == true)
        #expect(failure(["topic": "t", "is_batched": "maybe"])?.code == .invalidParameterValue)
        #expect(failure(["topic": "t", "mode": "newest"])?.message == "option \"mode\" of the demo connector must be 'earliest', 'latest', not 'newest'")
        #expect(failure(["topic": "t", "properties.": "x"])?.code == .syntaxError)
    }

    @Test func matchPatterns() throws {
        let names = try GlobPattern("*.parquet")
        #expect(names.matches("a.parquet") && names.matches("event_type=x/dt=1/part-0.parquet") && !names.matches("a.parquet.tmp"))
        let paths = try GlobPattern("events/**/*.json")
        #expect(paths.matches("events/a.json") && paths.matches("events/2026/11/a.json") && !paths.matches("other/a.json"))
        let single = try GlobPattern("logs/*/x?.csv")
        #expect(single.matches("logs/a/x1.csv") && !single.matches("logs/a/b/x1.csv") && !single.matches("logs/a/x12.csv"))
        let sets = try GlobPattern("part-[0-3][!x].csv")
        #expect(sets.matches("part-2a.csv") && !sets.matches("part-5a.csv") && !sets.matches("part-2x.csv"))
        #expect(throws: SluiceError.self) { try GlobPattern("") }
        // A pattern of many stars against a long name answers at once (memoized, no blow-up).
        let stars = try GlobPattern(String(repeating: "*a", count: 40) + "b")
        #expect(!stars.matches(String(repeating: "a", count: 200)))
    }
}
