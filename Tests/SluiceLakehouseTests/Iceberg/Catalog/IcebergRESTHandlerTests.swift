import SluiceCore
import SluiceLakehouse
import Synchronization
import Testing

/// A `FileIO` in memory, so tables can live at `s3://` locations in tests.
final class MemoryFileIO: FileIO {
    let objects = Mutex<[String: [UInt8]]>([:])

    func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) { objects.withLock { $0[location] = bytes } }
    func read(_ location: String) throws(SluiceError) -> [UInt8] {
        guard let bytes = objects.withLock({ $0[location] }) else { throw SluiceError(.ioError, "no object \(location)") }
        return bytes
    }
    func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] { Array(try read(location)[range]) }
    func size(_ location: String) throws(SluiceError) -> Int? { objects.withLock { $0[location]?.count } }
    func delete(_ location: String) throws(SluiceError) { objects.withLock { _ = $0.removeValue(forKey: location) } }
    func list(prefix: String) throws(SluiceError) -> [FileEntry] {
        objects.withLock { $0.filter { $0.key.hasPrefix(prefix) }.map { FileEntry(location: $0.key, size: $0.value.count) } }
            .sorted { $0.location < $1.location }
    }
    func output(_ location: String) throws(SluiceError) -> any FileOutput { throw SluiceError(.featureNotSupported, "not needed") }
}

/// The REST handler without a network: vended credentials, and hostile bodies.
@Suite struct IcebergRESTHandlerTests {
    static func handler() throws -> IcebergRESTHandler {
        let directory = temporaryDirectory("handler")
        let store = try IcebergCatalogStore(rootDirectory: "\(directory)/catalog", warehouseRoot: "s3://bucket/prefix/", fileIO: MemoryFileIO())
        let tokens = try IcebergTokenAuthority(rootDirectory: "\(directory)/catalog", principals: ["root": "secret"])
        let s3 = IcebergS3Settings(endpoint: "http://127.0.0.1:9000", accessKeyID: "AK", secretAccessKey: "SK", region: "us-east-1", pathStyleAccess: true)
        return IcebergRESTHandler(store: store, tokens: tokens, s3Settings: s3)
    }

    static func request(_ method: String, _ path: String, _ handler: IcebergRESTHandler, headers: [String: String] = [:], body: String = "") async -> IcebergRESTResponse {
        var allHeaders = headers
        allHeaders["authorization"] = "Bearer \(handler.tokens.issueToken(principal: "root", scope: "catalog"))"
        let parts = path.split(separator: "?", maxSplits: 1)
        return await handler.handle(IcebergRESTRequest(method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
                                                       headers: allHeaders, body: Array(body.utf8)))
    }

    @Test func vendsS3SettingsOnlyWhenAsked() async throws {
        let handler = try Self.handler()
        #expect(await Self.request("POST", "/v1/wh/namespaces", handler, body: #"{"namespace":["n"]}"#).status == 200)
        let create = #"{"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"a","type":"int","required":false}]}}"#
        let created = await Self.request("POST", "/v1/wh/namespaces/n/tables", handler, headers: ["x-iceberg-access-delegation": "vended-credentials"], body: create)
        let json = try JSONDocument.parse(created.body)
        #expect(json["metadata"]?["location"] == .string("s3://bucket/prefix/wh/n/t"))
        #expect(json["config"]?["s3.access-key-id"] == .string("AK"))
        #expect(json["config"]?["s3.endpoint"] == .string("http://127.0.0.1:9000"))
        #expect(json["config"]?["s3.path-style-access"] == .string("true"))
        let plain = try JSONDocument.parse(await Self.request("GET", "/v1/wh/namespaces/n/tables/t", handler).body)
        #expect(plain["config"] == .object([]))
    }

    @Test func sinkStyleCommitRecordsTheEpoch() async throws {
        let handler = try Self.handler()
        let catalog = handler.store.warehouse("wh")
        try await catalog.createNamespaceIfMissing(["n"])
        let schema = try IcebergSchema(columns: [StructField(name: "id", type: .int64)])
        var table = try await catalog.createTable(namespace: ["n"], IcebergTableCreation(name: "t", schema: schema))
        let identifier = IcebergTableIdentifier(namespace: ["n"], name: "t")
        for epoch in 1 ... 3 {
            let commit = table.metadata.snapshotCommit(manifestList: "\(table.metadata.location)/metadata/snap-\(epoch).avro",
                                                       summary: ["sluice.epoch": "\(epoch)"], timestampMs: Int64(epoch))
            table = try await catalog.commitTable(identifier, requirements: commit.requirements, updates: commit.updates)
        }
        let reloaded = try #require(try await catalog.loadTable(identifier))
        #expect(reloaded.metadata.latestSummaryValue("sluice.epoch") == "3")
        #expect(reloaded.metadata.lastSequenceNumber == 3)
        #expect(reloaded.metadata.metadataLog.count == 3)
    }

    /// Random mutations of valid request bodies must give 2xx/4xx answers, never a crash or a 5xx.
    @Test func survivesHostileBodies() async throws {
        let handler = try Self.handler()
        _ = await Self.request("POST", "/v1/wh/namespaces", handler, body: #"{"namespace":["n"]}"#)
        let bodies = [
            #"{"name":"t","schema":{"type":"struct","fields":[{"id":1,"name":"a","type":{"type":"list","element-id":2,"element":"int","element-required":false},"required":false}]},"partition-spec":{"spec-id":0,"fields":[{"source-id":1,"field-id":1000,"name":"b","transform":"bucket[4]"}]}}"#,
            #"{"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}],"updates":[{"action":"set-properties","updates":{"k":"v"}},{"action":"add-snapshot","snapshot":{"snapshot-id":1,"sequence-number":1,"timestamp-ms":1,"manifest-list":"s3://x","summary":{"operation":"append"}}}]}"#,
        ]
        let paths = ["/v1/wh/namespaces/n/tables", "/v1/wh/namespaces/n/tables/t"]
        var generator = SplitMix64(seed: 11)
        for round in 0 ..< 600 {
            let which = round % 2
            var bytes = Array(bodies[which].utf8)
            if round % 5 == 0 {
                bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count))))
            } else {
                for _ in 0 ..< 1 + Int(generator.next() % 3) {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            let response = await handler.handle(IcebergRESTRequest(
                method: "POST", path: paths[which], query: nil,
                headers: ["authorization": "Bearer \(handler.tokens.issueToken(principal: "root", scope: "catalog"))"], body: bytes))
            #expect(response.status < 500, "status \(response.status) for \(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
