import SluiceCore
import SluiceHTTP
import SluiceKafkaClient

extension KsqlService {
    /// `POST /inserts-stream`: a first line `{"target": "STREAM"}`, then a JSON object per line,
    /// each appended to the stream's topic; answered with an acknowledgement per row
    /// (`{"status":"ok","seq":n}`, or `{"status":"error","seq":n,"error_code":…,"message":…}`),
    /// a line each, or one JSON array with `Accept: application/json`.
    func insertsStream(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let acceptsJSON = request.headers.first(name: "accept")?.contains("application/json") == true
        var lines = request.body.split(separator: 0x0A, omittingEmptySubsequences: true)[...]
        guard let first = lines.popFirst(), let target = (try? JSONDocument.parse(Array(first)))?["target"]?.stringValue else {
            return Self.json(KsqlJSON.genericError("Invalid JSON in request: the first line must be {\"target\": \"<stream>\"}"), status: 400)
        }
        guard let object = KsqlCatalog(catalog: database.catalog).object(named: target.lowercased()), !object.isTable, !object.topic.isEmpty else {
            return Self.json(KsqlJSON.genericError("Cannot insert values into an unknown stream: \(target)", code: KsqlJSON.ErrorCode.notFound), status: 400)
        }
        guard object.valueFormat == "JSON" else {
            return Self.json(KsqlJSON.genericError("Sluice's /inserts-stream writes JSON values; \(object.name) is \(object.valueFormat)"), status: 400)
        }
        guard let bootstrap else {
            return Self.json(KsqlJSON.genericError("inserts need the built-in broker, which is off (--no-broker)"), status: 400)
        }
        var acknowledgements: [JSONDocument] = []
        do {
            let producer = try KafkaProducer(bootstrapServers: bootstrap, properties: ["acks": "all"])
            defer { try? producer.close(timeout: .seconds(10)) }
            var produced: [Int] = []
            for (sequence, line) in lines.enumerated() {
                guard case .object? = try? JSONDocument.parse(Array(line)) else {
                    acknowledgements.append(.object([
                        "status": .string("error"), "seq": .int(Int64(sequence)), "error_code": .int(KsqlJSON.ErrorCode.badRequest),
                        "message": .string("Invalid JSON in inserts stream: a row must be a JSON object"),
                    ]))
                    continue
                }
                try producer.produce(topic: object.topic, key: nil, value: Array(line))
                produced.append(sequence)
                acknowledgements.append(.object(["status": .string("ok"), "seq": .int(Int64(sequence))]))
            }
            // Acknowledged once the broker has them.
            try producer.flush(timeout: .seconds(10))
        } catch {
            return Self.json(KsqlJSON.genericError("could not write to topic \(object.topic): \(error)", code: KsqlJSON.ErrorCode.serverError), status: 500)
        }
        let bytes: [UInt8]
        if acceptsJSON {
            bytes = JSONDocument.array(acknowledgements).bytes
        } else {
            bytes = acknowledgements.flatMap { $0.bytes + [0x0A] }
        }
        return HTTPServerResponse(status: .ok, contentType: acceptsJSON ? "application/json" : "application/vnd.ksqlapi.delimited.v1", bytes: bytes)
    }
}
