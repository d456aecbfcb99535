import SluiceCore
import Testing

@testable import SluiceSQL

/// Feeds the parser random and mutated input: it must return or throw a `SluiceError`, never
/// crash or hang.
@Suite struct FuzzTests {
    /// The project's seeded generator (SplitMix64), so failures reproduce.
    typealias SeededGenerator = SplitMix64

    static let vocabulary: [String] = [
        "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "OFFSET", "JOIN", "LEFT", "ON", "USING", "AS",
        "CREATE", "TABLE", "MATERIALIZED", "VIEW", "SOURCE", "SINK", "WITH", "FORMAT", "ENCODE", "WATERMARK", "FOR", "INSERT",
        "INTO", "VALUES", "UPDATE", "SET", "DELETE", "DROP", "SHOW", "EXPLAIN", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST",
        "INTERVAL", "NOT", "AND", "OR", "IS", "NULL", "IN", "BETWEEN", "LIKE", "ARRAY", "ROW", "STRUCT", "EXISTS", "OVER",
        "PARTITION", "UNION", "ALL", "DISTINCT", "TUMBLE", "count", "a", "b", "t", "1", "2.5", "'x'", "$1", "(", ")", "[", "]",
        ",", ";", ".", "*", "+", "-", "/", "=", "<", ">", "<>", "::", "->>", "||", "~", "<", ">>", "int", "varchar", "SECOND",
        "OPERATOR", "COLLATE", "EXTRACT", "TRIM", "SUBSTRING", "POSITION",
    ]

    @Test func randomTokenSequences() {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<5_000 {
            let length = Int.random(in: 1...30, using: &generator)
            let sql = (0..<length).map { _ in Self.vocabulary.randomElement(using: &generator)! }.joined(separator: " ")
            SQLFuzz.run(Array(sql.utf8))
        }
    }

    @Test func mutatedCorpus() {
        var generator = SeededGenerator(seed: 7)
        let corpus = Corpus.all.map { Array($0.utf8) }
        for _ in 0..<5_000 {
            var bytes = corpus.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                guard !bytes.isEmpty else { break }
                let offset = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: bytes[offset] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(offset...)
                case 2:
                    let end = min(bytes.count, offset + Int.random(in: 1...20, using: &generator))
                    bytes.insert(contentsOf: bytes[offset..<end], at: offset)
                case 3: bytes.remove(at: offset)
                default: bytes[offset] = Array("()'\"$;-/*[]<>:".utf8).randomElement(using: &generator)!
                }
            }
            SQLFuzz.run(bytes)
        }
    }

    @Test func truncationsOfEveryCorpusEntry() {
        for sql in Corpus.all {
            let bytes = Array(sql.utf8)
            for end in stride(from: 0, to: bytes.count, by: 3) {
                SQLFuzz.run(Array(bytes[..<end]))
            }
        }
    }
}

@Suite struct FuzzRegressionTests {
    /// Found by `sluice fuzz sql`: negating the smallest bigint literal overflowed.
    @Test func negatingTheSmallestBigintLiteralGivesNumeric() throws {
        let expression = try SQLParser.parseExpression("- -9223372036854775808")
        #expect(expression.node == .literal(.numeric("9223372036854775808")))
    }
}

extension FuzzRegressionTests {
    /// Found by `sluice fuzz sql`: a quoted type name with a space printed without its quotes.
    @Test func quotedTypeNamesKeepTheirQuotesWhenPrinted() throws {
        let statement = try SQLParser.parse("SELECT \"Quoted Col\" ''")[0]
        #expect(statement.description.contains("\"Quoted Col\" ''"))
        #expect(try SQLParser.parse(statement.description) == [statement])
    }
}

extension FuzzRegressionTests {
    /// Found by `sluice fuzz sql`: `values(…)` read as a function call, which printed back as
    /// something that does not parse. VALUES is a column-name keyword, never a function.
    @Test func valuesIsNotAFunctionName() {
        #expect(throws: SluiceError.self) { try SQLParser.parse("SELECT CAST('2024-05-06' AS date) + VALUES (9, 'x') ::int") }
        #expect(throws: SluiceError.self) { try SQLParser.parse("SELECT values(1)") }
    }
}
