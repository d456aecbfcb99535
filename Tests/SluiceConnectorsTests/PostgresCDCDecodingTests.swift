import Testing
import SluiceCore
import SluicePostgresClient
@testable import SluiceConnectors

/// The pgoutput messages and the replication stream's framing, from bytes written here by hand
/// after PostgreSQL's "Logical Replication Message Formats" and "Streaming Replication
/// Protocol"; the decoders never read past a message, whatever its bytes; JDBC URLs and LSNs.
@Suite struct PostgresCDCDecodingTests {
    private func int16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private func int32(_ value: UInt32) -> [UInt8] { (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private func int64(_ value: UInt64) -> [UInt8] { (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
    private func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
    private func text(_ value: String) -> [UInt8] { [UInt8(ascii: "t")] + int32(UInt32(value.utf8.count)) + Array(value.utf8) }

    private var relation: [UInt8] {
        [UInt8(ascii: "R")] + int32(16_385) + string("public") + string("orders") + [UInt8(ascii: "d")] + int16(3)
            + [1] + string("id") + int32(23) + int32(UInt32(bitPattern: -1))
            + [0] + string("note") + int32(25) + int32(UInt32(bitPattern: -1))
            + [0] + string("amount") + int32(1700) + int32(0x0006_0006)
    }

    private var insert: [UInt8] {
        [UInt8(ascii: "I")] + int32(16_385) + [UInt8(ascii: "N")] + int16(3) + text("7") + [UInt8(ascii: "u")] + [UInt8(ascii: "n")]
    }

    private func decode(_ bytes: [UInt8]) throws(SluiceError) -> PgOutputMessage {
        var tuples = PgOutputTuples()
        return try decode(bytes, tuples: &tuples)
    }

    private func decode(_ bytes: [UInt8], tuples: inout PgOutputTuples) throws(SluiceError) -> PgOutputMessage {
        var result: Result<PgOutputMessage, SluiceError> = .failure(SluiceError(.internalError, "not decoded"))
        bytes.withUnsafeBytes { raw in
            do throws(SluiceError) { result = .success(try PgOutputMessage.decode(raw, tuples: &tuples)) } catch { result = .failure(error) }
        }
        return try result.get()
    }

    @Test func decodesEachMessageKind() throws {
        guard case .begin(let final, let xid) = try decode([UInt8(ascii: "B")] + int64(0x16_B374_D848) + int64(1) + int32(742)) else {
            Issue.record("not a begin"); return
        }
        #expect(final == 0x16_B374_D848 && xid == 742)
        guard case .commit(let commit, let end) = try decode([UInt8(ascii: "C"), 0] + int64(100) + int64(164) + int64(5)) else {
            Issue.record("not a commit"); return
        }
        #expect(commit == 100 && end == 164)
        guard case .relation(let described) = try decode(relation) else { Issue.record("not a relation"); return }
        #expect(described.id == 16_385 && described.namespace == "public" && described.name == "orders" && described.replicaIdentity == UInt8(ascii: "d"))
        #expect(described.columns.map(\.name) == ["id", "note", "amount"] && described.columns.map(\.isKey) == [true, false, false])
        #expect(described.columns[2].typeOID == 1700 && described.columns[0].typeModifier == -1)
        let insertBytes = insert
        var tuples = PgOutputTuples()
        guard case .insert(let id) = try decode(insertBytes, tuples: &tuples) else { Issue.record("not an insert"); return }
        #expect(id == 16_385 && tuples.new.kinds == [.text, .unchangedToast, .null])
        #expect(Array(insertBytes[tuples.new.ranges[0]]) == Array("7".utf8))
        // An update that moves the key carries the old key first.
        let update = [UInt8(ascii: "U")] + int32(16_385) + [UInt8(ascii: "K")] + int16(3) + text("7") + [UInt8(ascii: "n"), UInt8(ascii: "n")]
            + [UInt8(ascii: "N")] + int16(3) + text("8") + text("x") + text("1.50")
        guard case .update(_, true) = try decode(update, tuples: &tuples) else { Issue.record("not an update with its old key"); return }
        #expect(Array(update[tuples.old.ranges[0]]) == Array("7".utf8) && Array(update[tuples.new.ranges[2]]) == Array("1.50".utf8))
        guard case .update(_, false) = try decode([UInt8(ascii: "U")] + int32(1) + [UInt8(ascii: "N")] + int16(1) + text("1")) else {
            Issue.record("not an update without an old row"); return
        }
        guard case .delete = try decode([UInt8(ascii: "D")] + int32(1) + [UInt8(ascii: "K")] + int16(1) + text("9"), tuples: &tuples) else {
            Issue.record("not a delete"); return
        }
        #expect(tuples.old.kinds == [.text])
        guard case .truncate(let relations) = try decode([UInt8(ascii: "T")] + int32(2) + [0] + int32(5) + int32(6)) else {
            Issue.record("not a truncate"); return
        }
        #expect(relations == [5, 6])
        guard case .other = try decode([UInt8(ascii: "Y")] + int32(1) + string("public") + string("mood")) else { Issue.record("not skipped"); return }
    }

    @Test func refusesWhatIsDamaged() {
        let damaged: [[UInt8]] = [
            [],
            [UInt8(ascii: "Z")],
            [UInt8(ascii: "B")] + int64(1),
            // A field longer than the message.
            [UInt8(ascii: "I")] + int32(1) + [UInt8(ascii: "N")] + int16(1) + [UInt8(ascii: "t")] + int32(1000) + [1, 2],
            // More fields than bytes.
            [UInt8(ascii: "I")] + int32(1) + [UInt8(ascii: "N")] + int16(60_000),
            // A string without its end.
            [UInt8(ascii: "R")] + int32(1) + Array("public".utf8),
            [UInt8(ascii: "I")] + int32(1) + [UInt8(ascii: "X")],
            [UInt8(ascii: "T")] + int32(0x7FFF_FFFF) + [0],
            [UInt8(ascii: "I")] + int32(1) + [UInt8(ascii: "N")] + int16(1) + [UInt8(ascii: "q")],
        ]
        for bytes in damaged {
            #expect(throws: SluiceError.self) { try decode(bytes) }
        }
    }

    @Test func neverReadsPastAMessageWhateverItsBytes() {
        var generator = SplitMix(seed: 20_261_127)
        let seeds = [relation, insert, [UInt8(ascii: "C"), 0] + int64(1) + int64(2) + int64(3), [UInt8(ascii: "T")] + int32(1) + [0] + int32(5)]
        var decoded = 0
        for round in 0 ..< 20_000 {
            var bytes = seeds[round % seeds.count]
            switch generator.next() % 4 {
            case 0: bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            case 1:
                for _ in 0 ..< 1 + Int(generator.next() % 4) where !bytes.isEmpty {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            case 2: bytes = (0 ..< Int(generator.next() % 64)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            default: bytes += (0 ..< Int(generator.next() % 8)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            }
            var tuples = PgOutputTuples()
            if let message = try? decode(bytes, tuples: &tuples) {
                decoded += 1
                // Whatever decoded points only inside its message.
                switch message {
                case .insert, .update(_, false):
                    #expect(tuples.new.ranges.allSatisfy { $0.upperBound <= bytes.count })
                case .delete:
                    #expect(tuples.old.ranges.allSatisfy { $0.upperBound <= bytes.count })
                default: break
                }
            }
            if bytes.count >= 1 {
                bytes.withUnsafeBytes { raw in _ = try? ReplicationStreamMessage.decode(raw) }
            }
        }
        #expect(decoded > 0)
    }

    @Test func streamFramingAndTheStatusUpdate() throws {
        let data = [UInt8(ascii: "w")] + int64(10) + int64(20) + int64(30) + [UInt8(ascii: "B")]
        var decoded: ReplicationStreamMessage?
        data.withUnsafeBytes { decoded = try? ReplicationStreamMessage.decode($0) }
        guard case .data(let start, let end, let payload)? = decoded else { Issue.record("not XLogData"); return }
        #expect(start == 10 && end == 20 && payload == 25 ..< 26)
        let keepalive = [UInt8(ascii: "k")] + int64(99) + int64(0) + [1]
        keepalive.withUnsafeBytes { decoded = try? ReplicationStreamMessage.decode($0) }
        guard case .keepalive(99, true)? = decoded else { Issue.record("not a keepalive asking for a reply"); return }
        // 'r', three positions, the clock (microseconds since 2000-01-01), the reply flag.
        let status = ReplicationStreamMessage.statusUpdate(0x1_0000_0002, now: 946_684_800_000_000 + 5)
        #expect(status == [UInt8(ascii: "r")] + int64(0x1_0000_0002) + int64(0x1_0000_0002) + int64(0x1_0000_0002) + int64(5) + [0])
    }

    @Test func lsnsReadAndWriteAsPostgreSQLDoes() {
        #expect(LSN("16/B374D848")?.value == 0x16_B374_D848)
        #expect(LSN(0x16_B374_D848).description == "16/B374D848")
        #expect(LSN("0/0")?.value == 0)
        for bad in ["", "16", "16/", "/1", "G/1", "1/2/3", "123456789/0"] { #expect(LSN(bad) == nil, "\(bad)") }
    }

    @Test func jdbcURLsAsPgjdbcReadsThem() throws {
        let url = try JDBCURL("jdbc:postgresql://db.example:6543/ware%20house?user=me&password=p%40ss%26word&sslmode=require&ApplicationName=x")
        #expect(url.hosts == "db.example" && url.ports == "6543" && url.database == "ware house")
        #expect(url.parameters["user"] == "me" && url.parameters["password"] == "p@ss&word" && url.parameters["sslmode"] == "require")
        #expect(url.parameters["applicationname"] == "x")
        let several = try JDBCURL("jdbc:postgresql://a,b:5433,[::1]:5434/db")
        #expect(several.hosts == "a,b,::1" && several.ports == "5432,5433,5434")
        for bad in ["jdbc:mysql://h/db", "postgresql://h/db", "jdbc:postgresql://h", "jdbc:postgresql://h/", "jdbc:postgresql://h:0/db",
                    "jdbc:postgresql://h:x/db", "jdbc:postgresql:///db", "jdbc:postgresql://h/db?user=%zz"] {
            #expect(throws: SluiceError.self, "\(bad)") { try JDBCURL(bad) }
        }
    }
}

/// A small deterministic generator for the fuzz rounds.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
