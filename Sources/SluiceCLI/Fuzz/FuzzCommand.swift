import SluiceCommandLine
import Foundation
import SluiceCore
import SluiceFormats
import SluiceState

struct Fuzz: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Feed random and mutated input to the SQL parser, the wire decoder or the whole engine.",
        discussion: """
            Inputs come from a seeded generator, so a run is reproducible from its seed. A crash is a bug: \
            rerun with --trace to see the input that caused it.
            """)

    enum Target: String, ExpressibleByArgument, CaseIterable {
        case sql, wire, engine, json, state, copy, csv
    }

    @Argument(help: "What to fuzz: sql (parser), wire (Postgres protocol decoder and state machine), engine (parse, bind and run), json (the JSON source decoder), state (write-ahead log records and stored chunks), copy (the COPY text and CSV row reader) or csv (file sources' CSV records, the CSV writer, gzip).")
    var target: Target

    @Option(help: "Stop after this many seconds.")
    var seconds: Double?

    @Option(help: "Stop after this many inputs.")
    var iterations: Int?

    @Option(help: "Seed of the input generator.")
    var seed: UInt64 = 1

    @Option(help: "Also read seed SQL statements from the .slt files under this directory.")
    var corpus: String?

    @Flag(help: "Print every input to standard error before running it.")
    var trace = false

    @Option(help: "Generate but do not run the first N inputs (to replay the inputs near a crash with --trace).")
    var skip = 0

    func validate() throws {
        if seconds == nil && iterations == nil { throw ValidationError("give --seconds or --iterations") }
    }

    func run() async throws {
        var random = SplitMix64(seed: seed)
        let sqlSeeds = FuzzCorpus.sqlStatements + (corpus.map(FuzzCorpus.statements(fromSLTUnder:)) ?? [])
        let deadline = seconds.map { Date().addingTimeInterval($0) }
        let limit = iterations ?? Int.max
        let engine = target == .engine ? try EngineFuzzer() : nil
        var json = JSONDecodeFuzz()
        var state = LogRecordFuzz()
        var copy = CopyRowFuzz()
        var csv = CSVRecordFuzz()
        var count = 0
        var lastReport = Date()
        let start = Date()
        while count < limit {
            if let deadline, count % 64 == 0, Date() >= deadline { break }
            count += 1
            let skipping = count <= skip
            switch target {
            case .sql:
                let input = Mutator.mutate(Array(sqlSeeds[random.next(below: sqlSeeds.count)].utf8), seeds: sqlSeeds, random: &random)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data(input + [10])) }
                SQLFuzzEntry.run(input)
            case .wire:
                let input = WireInputs.make(random: &random, sqlSeeds: sqlSeeds)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data((input.map { String($0) }.joined(separator: " ") + "\n").utf8)) }
                WireFuzzEntry.run(input)
            case .engine:
                let sql = FuzzCorpus.engineStatement(random: &random, seeds: sqlSeeds)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data((sql + "\n").utf8)) }
                try await engine!.run(sql, iteration: count)
            case .json:
                let input = JSONDecodeFuzz.input(random: &random)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data(input + [10])) }
                json.run(input)
            case .state:
                let input = LogRecordFuzz.input(random: &random)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data((input.map { String($0) }.joined(separator: " ") + "\n").utf8)) }
                state.run(input)
            case .copy:
                let input = CopyRowFuzz.input(random: &random)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data((input.bytes.map { String($0) }.joined(separator: " ") + "\n").utf8)) }
                copy.run(input)
            case .csv:
                let input = CSVRecordFuzz.input(random: &random)
                if skipping { continue }
                if trace { FileHandle.standardError.write(Data((input.bytes.map { String($0) }.joined(separator: " ") + "\n").utf8)) }
                csv.run(input)
            }
            if Date().timeIntervalSince(lastReport) >= 10 {
                lastReport = Date()
                FileHandle.standardError.write(Data("sluice fuzz \(target.rawValue): \(count) inputs in \(Int(Date().timeIntervalSince(start))) s\n".utf8))
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        var extra = engine.map { ", \($0.errors) clean errors, \($0.successes) statements ran" } ?? ""
        if target == .json { extra = ", \(json.rows) rows, \(json.errors) clean errors, builders intact" }
        if target == .copy { extra = ", \(copy.rows) rows, \(copy.errors) clean errors, the same however cut" }
        if target == .csv { extra = ", \(csv.records) records, the same however cut" }
        if target == .state { extra = ", \(state.decoded) records decoded, \(state.errors) clean errors" }
        print("sluice fuzz \(target.rawValue): \(count) inputs in \(String(format: "%.1f", elapsed)) s, seed \(seed), no crash\(extra)")
    }
}
