import SluiceCore
import Testing

@testable import SluiceGen

@Suite struct ByteWriterTests {
    private func text(_ write: (ByteWriter) -> Void) -> String {
        let writer = ByteWriter(capacity: 16)
        write(writer)
        return String(decoding: writer.array, as: UTF8.self)
    }

    @Test func decimalsOfEveryMagnitude() {
        #expect(text { $0.appendDecimal(0) } == "0")
        #expect(text { $0.appendDecimal(7) } == "7")
        #expect(text { $0.appendDecimal(-42) } == "-42")
        #expect(text { $0.appendDecimal(Int64.max) } == "9223372036854775807")
        #expect(text { $0.appendDecimal(Int64.min) } == "-9223372036854775808")
        #expect(text { $0.appendDecimal(UInt64.max) } == "18446744073709551615")
        #expect(text { $0.appendPadded(7, width: 4) } == "0007")
        #expect(text { $0.appendPadded(12345, width: 4) } == "12345")
    }

    @Test func growsPastItsCapacity() {
        let writer = ByteWriter(capacity: 16)
        for _ in 0 ..< 1000 { writer.append("abcdefgh") }
        #expect(writer.count == 8000)
        writer.removeAll()
        #expect(writer.count == 0)
    }

    @Test func stringsAreEscaped() {
        let escaped = text { writer in
            Array("a\"b\\c\nd\te\u{01}é".utf8).withUnsafeBytes { writer.appendJSONString($0) }
        }
        #expect(escaped == #""a\"b\\c\nd\te\u0001é""#)
    }

    @Test func objectsInBothStyles() {
        let compact = text { out in
            var json = JSONObjectWriter(into: out)
            json.int("a", 1)
            json.string("b", "x")
            json.null("c")
            json.bool("d", true)
            json.cents("e", 4999)
            json.cents("f", 5)
            json.close()
        }
        #expect(compact == #"{"a":1,"b":"x","c":null,"d":true,"e":49.99,"f":0.05}"#)
        let python = text { out in
            var json = JSONObjectWriter(into: out, style: .python)
            json.int("a", 1)
            json.string("b", literal: "x")
            json.close()
        }
        #expect(python == #"{"a": 1, "b": "x"}"#)
    }

    @Test func timestampFormats() throws {
        let micros = try TemporalText.parseTimestamp("2024-02-29 23:59:58.123456+00", withZone: true)
        #expect(text { $0.appendTimestamp(micros, .isoMicrosZ) } == "2024-02-29T23:59:58.123456Z")
        #expect(text { $0.appendTimestamp(micros, .isoMicrosOffset) } == "2024-02-29T23:59:58.123456+00:00")
        #expect(text { $0.appendTimestamp(micros, .isoMillis) } == "2024-02-29T23:59:58.123")
        #expect(text { $0.appendTimestamp(micros, .sqlMillis) } == "2024-02-29 23:59:58.123")
        #expect(text { $0.appendTimestamp(0, .isoMicrosZ) } == "1970-01-01T00:00:00.000000Z")
    }
}

@Suite struct NDJSONSinkTests {
    @Test func ndjsonSinkWritesLinesInBlocks() throws {
        var blocks: [[UInt8]] = []
        var sink = NDJSONSink(blockSize: 10) { blocks.append(Array($0)) }
        for line in ["{\"a\":1}", "{\"b\":22}", "{}"] {
            try Array(line.utf8).withUnsafeBytes { try sink.send(key: nil, value: $0) }
        }
        try sink.finish()
        #expect(blocks.map { String(decoding: $0, as: UTF8.self) } == ["{\"a\":1}\n{\"b\":22}\n", "{}\n"])
        #expect(sink.bytesWritten == 20)
    }
}
