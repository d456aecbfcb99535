import SluiceCore
import SluiceHTTP
import SluiceKafkaClient

extension KsqlService {
    /// `PRINT topic [FROM BEGINNING] [LIMIT n]` on `/query`: the topic's records as ksqlDB's CLI
    /// shows them, a line each (`rowtime: 2024/01/10 09:30:00.000 Z, key: k, value: {…},
    /// partition: 0`), after the formats it saw, until LIMIT or the client goes.
    func print(topic: String, fromBeginning: Bool, limit: Int?, text: String) -> HTTPServerResponse {
        guard let bootstrap, partitions(of: topic) > 0 else {
            return Self.json(
                KsqlJSON.statementError("Could not find topic '\(topic)', or the KSQL user does not have permissions to list the topic. Topic names are case-sensitive.", statement: text),
                status: 400)
        }
        let partitionCount = partitions(of: topic)
        let number = nextQueryNumber()
        return HTTPServerResponse(status: .ok, headers: [("content-type", "text/plain; charset=utf-8")], body: .stream { writer in
            let consumer = try KafkaConsumer(bootstrapServers: bootstrap, properties: ["group.id": "ksql_print_\(number)"])
            defer { consumer.close() }
            try consumer.assign((0 ..< partitionCount).map { KafkaAssignment(topic: topic, partition: Int32($0), offset: fromBeginning ? .earliest : .latest) })
            var printed = 0
            var wroteFormats = false
            try await Self.relay(consumer, to: writer, while: { limit.map { printed < $0 } ?? true }) { batch, out in
                for message in batch where !message.isError {
                    guard limit.map({ printed < $0 }) ?? true else { continue }
                    let value = message.value.map { [UInt8]($0) }
                    if !wroteFormats {
                        let isJSON = value.map { (try? JSONDocument.parse($0)) != nil } ?? false
                        out += Array("Key format: KAFKA_STRING\nValue format: \(isJSON ? "JSON" : "KAFKA_STRING")\n".utf8)
                        wroteFormats = true
                    }
                    out += Array("rowtime: \(Self.rowtime(message.timestamp ?? 0)), key: ".utf8)
                    out += message.key.map { [UInt8]($0) } ?? Array("<null>".utf8)
                    out += Array(", value: ".utf8)
                    out += value ?? Array("<null>".utf8)
                    out += Array(", partition: \(message.partition)\n".utf8)
                    printed += 1
                }
            }
            try await writer.write(Array("Topic printing ceased\n".utf8))
        })
    }

    /// Streams what `render` makes of each batch `consumer` polls to `writer` while `going`
    /// holds, polling every 50 ms; after a second without records, ksqlDB's keep-alive newline,
    /// which is also how a client that went away is noticed (the write throws).
    static func relay(
        _ consumer: KafkaConsumer, to writer: HTTPBodyWriter, while going: () -> Bool, render: (KafkaMessageBatch, inout [UInt8]) -> Void
    ) async throws {
        var quiet = ContinuousClock.now
        while going() {
            var out: [UInt8] = []
            consumer.poll(maxMessages: 256, timeout: .zero) { (batch: KafkaMessageBatch) in render(batch, &out) }
            if !out.isEmpty {
                try await writer.write(out)
                quiet = .now
            } else if ContinuousClock.now - quiet > .seconds(1) {
                try await writer.write([0x0A])
                quiet = .now
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    /// A record's timestamp as PRINT shows it: `yyyy/MM/dd HH:mm:ss.SSS Z`, in UTC.
    static func rowtime(_ milliseconds: Int64) -> String {
        // (A record's timestamp is any 64-bit number a producer sent: clamped to what microseconds hold.)
        let limit = Int64.max / 1000
        let (days, timeOfDay) = TemporalUnits.split(min(max(milliseconds, -limit), limit) * 1000)
        let date = CivilDate(daysSinceUnixEpoch: Int(days))
        let dayMilliseconds = Int(timeOfDay / 1000)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let time = "\(pad(dayMilliseconds / 3_600_000, 2)):\(pad(dayMilliseconds / 60_000 % 60, 2)):\(pad(dayMilliseconds / 1000 % 60, 2)).\(pad(dayMilliseconds % 1000, 3))"
        return "\(pad(date.year, 4))/\(pad(date.month, 2))/\(pad(date.day, 2)) \(time) Z"
    }
}
