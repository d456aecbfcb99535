import SluiceCore
import Testing

@testable import SluiceState

@Suite struct LogRecordFuzzTests {
    @Test func seedRecordsDecodeToWhatWasEncoded() throws {
        for seed in LogRecordFuzz.seeds {
            let record = try TableLogRecord.decode(seed) { $0 == 7 ? LogRecordFuzz.types : nil }
            #expect(record?.encoded() == seed)
        }
    }

    /// Mutated and random records fail cleanly or decode into readable chunks (a trap would end
    /// the test run).
    @Test func mutatedRecordsNeverTrap() {
        var random = SplitMix64(seed: 99)
        var fuzz = LogRecordFuzz()
        for _ in 0 ..< 20_000 { fuzz.run(LogRecordFuzz.input(random: &random)) }
        #expect(fuzz.errors > 1000 && fuzz.decoded > 100, "\(fuzz.errors) errors, \(fuzz.decoded) decoded")
    }
}
