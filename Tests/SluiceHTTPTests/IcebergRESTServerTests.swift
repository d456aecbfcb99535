import Foundation
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceLakehouse
import SluiceLakehouseClients
import SluiceNet
import Testing

/// End-to-end over real HTTP on a free loopback port (port 0).
@Suite struct IcebergRESTServerTests {
    struct Harness {
        let server: IcebergRESTServer
        let base: String
        let directory: String

        static func start(_ label: String) async throws -> Harness {
            let directory = temporaryDirectory(label)
            let store = try IcebergCatalogStore(rootDirectory: "\(directory)/catalog", warehouseRoot: "file://\(directory)/warehouse", fileIO: LocalFileIO())
            let server = try IcebergRESTServer(store: store, port: 0, principals: ["root": "secret", "other": "pw"])
            let port = try await server.start()
            return Harness(server: server, base: "http://127.0.0.1:\(port)", directory: directory)
        }

        func request(_ method: String, _ path: String, token: String? = nil, headers: [String: String] = [:],
                     body: String? = nil) async throws -> (status: Int, json: JSONDocument?) {
            var request = try HTTPClientRequest(method: method, url: base + path, headers: headers.map { ($0.key, $0.value) }, body: body.map { Array($0.utf8) })
            if let token { request.headers.append(("Authorization", "Bearer \(token)")) }
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let bytes = response.body
            return (response.status, bytes.isEmpty ? nil : try JSONDocument.parse(bytes))
        }

        func token(_ prefix: String = "") async throws -> String {
            let response = try await request("POST", "\(prefix)/v1/oauth/tokens",
                                             headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                             body: "grant_type=client_credentials&client_id=root&client_secret=secret&scope=PRINCIPAL_ROLE%3AALL")
            #expect(response.status == 200)
            #expect(response.json?["scope"] == .string("PRINCIPAL_ROLE:ALL"))
            #expect(response.json?["token_type"] == .string("bearer"))
            guard case .string(let token)? = response.json?["access_token"] else { throw SluiceError(.internalError, "no token") }
            return token
        }
    }

    static let createBody = #"""
    {"name":"t","location":null,"schema":{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"id","type":"long","required":false}]},
     "partition-spec":{"spec-id":0,"fields":[]},"write-order":{"order-id":0,"fields":[]},"stage-create":false,"properties":{}}
    """#

    @Test func authenticationIsRequired() async throws {
        let harness = try await Harness.start("auth")
        defer { Task { await harness.server.stop() } }
        let missing = try await harness.request("GET", "/v1/config")
        #expect(missing.status == 401)
        #expect(missing.json?["error"]?["type"] == .string("NotAuthorizedException"))
        #expect(missing.json?["error"]?["code"] == .int(401))
        #expect(try await harness.request("GET", "/v1/config", token: "forged.token").status == 401)

        let wrong = try await harness.request("POST", "/v1/oauth/tokens", body: "grant_type=client_credentials&client_id=root&client_secret=nope")
        #expect(wrong.status == 401 && wrong.json?["error"] == .string("invalid_client"))
        // HTTP Basic client authentication works too.
        let basic = try await harness.request("POST", "/api/catalog/v1/oauth/tokens",
                                              headers: ["Authorization": "Basic " + Data("other:pw".utf8).base64EncodedString()],
                                              body: "grant_type=client_credentials")
        #expect(basic.status == 200)

        let token = try await harness.token()
        let config = try await harness.request("GET", "/v1/config?warehouse=balloon-game", token: token)
        #expect(config.status == 200)
        #expect(config.json?["overrides"]?["prefix"] == .string("balloon-game"))
        let defaultConfig = try await harness.request("GET", "/api/catalog/v1/config", token: token)
        #expect(defaultConfig.json?["overrides"]?["prefix"] == .string("default"))
    }

    @Test func errorsFollowTheSpec() async throws {
        let harness = try await Harness.start("errors")
        defer { Task { await harness.server.stop() } }
        let token = try await harness.token()
        let badJSON = try await harness.request("POST", "/v1/wh/namespaces", token: token, headers: ["Content-Type": "application/vnd.api+json"], body: "{\"namespace\": [")
        #expect(badJSON.status == 400 && badJSON.json?["error"]?["type"] == .string("BadRequestException"))
        let wrongShape = try await harness.request("POST", "/v1/wh/namespaces", token: token, body: "{\"namespace\": 5}")
        #expect(wrongShape.status == 400)
        #expect(try await harness.request("GET", "/v1/wh/namespaces/nope", token: token).json?["error"]?["type"] == .string("NoSuchNamespaceException"))
        #expect(try await harness.request("HEAD", "/v1/wh/namespaces/nope", token: token).status == 404)

        #expect(try await harness.request("POST", "/v1/wh/namespaces", token: token, body: #"{"namespace":["n"]}"#).status == 200)
        let duplicate = try await harness.request("POST", "/v1/wh/namespaces", token: token, body: #"{"namespace":["n"]}"#)
        #expect(duplicate.status == 409 && duplicate.json?["error"]?["type"] == .string("AlreadyExistsException"))
        let missingTable = try await harness.request("GET", "/v1/wh/namespaces/n/tables/nope", token: token)
        #expect(missingTable.status == 404 && missingTable.json?["error"]?["type"] == .string("NoSuchTableException"))
        #expect(try await harness.request("POST", "/v1/wh/namespaces/n/tables", token: token, body: Self.createBody).status == 200)
        let notEmpty = try await harness.request("DELETE", "/v1/wh/namespaces/n", token: token)
        #expect(notEmpty.status == 409 && notEmpty.json?["error"]?["type"] == .string("NamespaceNotEmptyException"))
        #expect(try await harness.request("GET", "/v1/wh/nonsense/path", token: token).status == 404)
    }

    @Test func tablesOverBothPrefixesWithConflictsAndIdempotency() async throws {
        let harness = try await Harness.start("tables")
        defer { Task { await harness.server.stop() } }
        let token = try await harness.token()
        #expect(try await harness.request("POST", "/api/catalog/v1/wh/namespaces", token: token, body: #"{"namespace":["a","b"]}"#).status == 404)
        #expect(try await harness.request("POST", "/api/catalog/v1/wh/namespaces", token: token, body: #"{"namespace":["a"]}"#).status == 200)
        #expect(try await harness.request("POST", "/api/catalog/v1/wh/namespaces", token: token, body: #"{"namespace":["a","b"]}"#).status == 200)
        let children = try await harness.request("GET", "/v1/wh/namespaces?parent=a", token: token)
        #expect(children.json?["namespaces"] == .array([.array([.string("a"), .string("b")])]))

        let created = try await harness.request("POST", "/api/catalog/v1/wh/namespaces/a%1Fb/tables", token: token, body: Self.createBody)
        #expect(created.status == 200)
        #expect(created.json?["metadata"]?["format-version"] == .int(2))
        guard case .string(let location)? = created.json?["metadata-location"] else { Issue.record("no metadata-location"); return }
        #expect(location.hasPrefix("file://\(harness.directory)/warehouse/wh/a/b/t/metadata/00000-"))
        #expect(try await harness.request("HEAD", "/v1/wh/namespaces/a%1Fb/tables/t", token: token).status == 204)
        let listed = try await harness.request("GET", "/v1/wh/namespaces/a%1Fb/tables", token: token)
        #expect(listed.json?["identifiers"] == .array([IcebergTableIdentifier(namespace: ["a", "b"], name: "t").json]))

        let commit = #"""
        {"requirements":[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null}],
         "updates":[{"action":"set-properties","updates":{"k":"v"}}]}
        """#
        let key = ["Idempotency-Key": "0190a9f4-7c3e-7000-8000-000000000001"]
        let first = try await harness.request("POST", "/v1/wh/namespaces/a%1Fb/tables/t", token: token, headers: key, body: commit)
        #expect(first.status == 200)
        #expect(first.json?["metadata"]?["properties"]?["k"] == .string("v"))
        // The same key replays the stored response instead of committing again.
        let replay = try await harness.request("POST", "/api/catalog/v1/wh/namespaces/a%1Fb/tables/t", token: token, headers: key, body: commit)
        #expect(replay.status == 200 && replay.json == first.json)

        let stale = #"""
        {"requirements":[{"type":"assert-current-schema-id","current-schema-id":3}],"updates":[{"action":"set-properties","updates":{"x":"y"}}]}
        """#
        let conflict = try await harness.request("POST", "/v1/wh/namespaces/a%1Fb/tables/t", token: token, body: stale)
        #expect(conflict.status == 409 && conflict.json?["error"]?["type"] == .string("CommitFailedException"))

        let loaded = try await harness.request("GET", "/v1/wh/namespaces/a%1Fb/tables/t", token: token)
        guard case .string(let current)? = loaded.json?["metadata-location"] else { Issue.record("no metadata-location"); return }
        #expect(current.contains("/metadata/00001-"))
        #expect(loaded.json?["config"] == .object([]))

        let rename = #"{"source":{"namespace":["a","b"],"name":"t"},"destination":{"namespace":["a"],"name":"u"}}"#
        #expect(try await harness.request("POST", "/v1/wh/tables/rename", token: token, body: rename).status == 204)
        #expect(try await harness.request("DELETE", "/v1/wh/namespaces/a/tables/u?purgeRequested=true", token: token).status == 204)
        #expect(try await harness.request("HEAD", "/v1/wh/namespaces/a/tables/u", token: token).status == 404)
    }

    @Test func restClientTalksToTheServer() async throws {
        let harness = try await Harness.start("client")
        defer { Task { await harness.server.stop() } }
        let client = IcebergRESTCatalogClient(configuration: .init(
            uri: harness.base + "/api/catalog", credential: "root:secret", scope: "PRINCIPAL_ROLE:ALL", warehouse: "balloon-game",
            headers: ["Polaris-Realm": "default-realm"], oauth2ServerURI: harness.base + "/api/catalog/v1/oauth/tokens"))
        try await client.createNamespaceIfMissing(["balloon_pops", "inner"])
        try await client.createNamespaceIfMissing(["balloon_pops", "inner"])
        let identifier = IcebergTableIdentifier(namespace: ["balloon_pops", "inner"], name: "pops")
        #expect(try await client.loadTable(identifier) == nil)
        let schema = try IcebergSchema(columns: [StructField(name: "id", type: .int64), StructField(name: "at", type: .timestamptz)], identifierColumns: ["id"])
        let table = try await client.createTable(namespace: identifier.namespace, IcebergTableCreation(name: "pops", schema: schema))
        #expect(table.metadata.currentSchema?.identifierFieldIDs == [1])

        let snapshot = IcebergSnapshot(snapshotID: 77, parentSnapshotID: nil, sequenceNumber: table.metadata.nextSequenceNumber, timestampMs: 5,
                                       manifestList: table.metadata.location + "/metadata/snap-77.avro", summary: ["sluice.epoch": "12"], schemaID: 0)
        let committed = try await client.commitTable(identifier, requirements: [.assertRefSnapshotID(ref: "main", snapshotID: nil)],
                                                     updates: [.addSnapshot(snapshot), .setSnapshotRef(name: "main", ref: IcebergSnapshotRef(snapshotID: 77, kind: .branch))])
        #expect(committed.metadata.latestSummaryValue("sluice.epoch") == "12")
        #expect(try await client.loadTable(identifier)?.metadata.currentSnapshotID == 77)
        do {
            _ = try await client.commitTable(identifier, requirements: [.assertRefSnapshotID(ref: "main", snapshotID: nil)], updates: [])
            Issue.record("conflict not reported")
        } catch {
            #expect(error.code == IcebergCatalogError.commitConflictCode)
        }
        do {
            _ = try await client.createTable(namespace: identifier.namespace, IcebergTableCreation(name: "pops", schema: schema))
            Issue.record("duplicate create accepted")
        } catch {
            #expect(error.code == .duplicateObject)
        }
        // The in-process store answers the same through the same protocol.
        let local: any IcebergCatalog = harness.server.handler.store.warehouse("balloon-game")
        #expect(try await local.loadTable(identifier)?.metadata.currentSnapshotID == 77)
    }
}
