import Foundation
import SluiceCore
import Testing
@testable import SluiceServer

/// The built-in schema registry's REST handler over a store in a temporary data directory: ids,
/// versions, compatibility and Confluent's error codes, and the store read back as a restart
/// reads it.
@Suite struct SchemaRegistryTests {
    private static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sluice-registry-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func request(_ handler: SchemaRegistryHandler, _ method: String, _ path: String, _ body: JSONDocument? = nil) -> SchemaRegistryHandler.Reply {
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        return handler.handle(method: method, path: parts[0], query: parts.count > 1 ? parts[1] : nil, body: body?.bytes ?? [])
    }

    private func schema(_ fields: String) -> JSONDocument {
        .object(["schema": .string(#"{"type": "record", "name": "r", "fields": [\#(fields)]}"#)])
    }

    @Test func idsAreGlobalAndVersionsCount() throws {
        let handler = SchemaRegistryHandler(store: try SchemaRegistryStore(dataDirectory: nil))
        let v1 = schema(#"{"name": "a", "type": "string"}"#)
        #expect(request(handler, "POST", "/subjects/t-value/versions", v1) == .init(status: 200, body: .object(["id": .int(1)])))
        #expect(request(handler, "POST", "/subjects/t-value/versions", v1).body == .object(["id": .int(1)]), "the same schema again")
        #expect(request(handler, "POST", "/subjects/other%2Dvalue/versions", v1).body == .object(["id": .int(1)]), "the same schema elsewhere")
        let v2 = schema(#"{"name": "a", "type": "string"}, {"name": "b", "type": "int", "default": 0}"#)
        #expect(request(handler, "POST", "/subjects/t-value/versions", v2).body == .object(["id": .int(2)]))
        #expect(request(handler, "GET", "/subjects").body == .array([.string("other-value"), .string("t-value")]))
        #expect(request(handler, "GET", "/subjects/t-value/versions").body == .array([.int(1), .int(2)]))
        let latest = request(handler, "GET", "/subjects/t-value/versions/latest").body
        #expect(latest["version"] == .int(2) && latest["id"] == .int(2) && latest["subject"] == .string("t-value"))
        #expect(request(handler, "GET", "/schemas/ids/1").body["schema"] == .string(#"{"type":"record","name":"r","fields":[{"name":"a","type":"string"}]}"#))
        #expect(request(handler, "GET", "/schemas/ids/1/versions").body
            == .array([.object(["subject": .string("other-value"), "version": .int(1)]), .object(["subject": .string("t-value"), "version": .int(1)])]))
        #expect(request(handler, "POST", "/subjects/t-value", v1).body["version"] == .int(1))
    }

    @Test func refusalsCarryConfluentsCodes() throws {
        let handler = SchemaRegistryHandler(store: try SchemaRegistryStore(dataDirectory: nil))
        _ = request(handler, "POST", "/subjects/t-value/versions", schema(#"{"name": "a", "type": "string"}"#))
        func code(_ reply: SchemaRegistryHandler.Reply) -> (Int, Int64?) { (reply.status, reply.body["error_code"]?.integerValue) }
        let retyped = schema(#"{"name": "a", "type": "int"}"#)
        #expect(code(request(handler, "POST", "/subjects/t-value/versions", retyped)) == (409, 409))
        #expect(request(handler, "POST", "/compatibility/subjects/t-value/versions/latest", retyped).body == .object(["is_compatible": .bool(false)]))
        #expect(code(request(handler, "POST", "/subjects/t-value/versions", .object(["schema": .string("{\"type\": \"nope\"}")]))) == (422, 42201))
        #expect(code(request(handler, "POST", "/subjects/t-value/versions", .object(["schema": .string("\"int\""), "schemaType": .string("PROTOBUF")]))) == (422, 42201))
        #expect(code(request(handler, "GET", "/subjects/missing/versions")) == (404, 40401))
        #expect(code(request(handler, "GET", "/subjects/t-value/versions/7")) == (404, 40402))
        #expect(code(request(handler, "GET", "/subjects/t-value/versions/zero")) == (422, 42202))
        #expect(code(request(handler, "GET", "/schemas/ids/99")) == (404, 40403))
        #expect(code(request(handler, "POST", "/subjects/t-value", retyped)) == (404, 40403))
        #expect(code(request(handler, "PUT", "/config/t-value", .object(["compatibility": .string("SIDEWAYS")]))) == (422, 42203))
        #expect(code(request(handler, "GET", "/config/t-value")) == (404, 40408))
        // Levels: the global default, a subject's own, and NONE taking anything.
        #expect(request(handler, "GET", "/config").body == .object(["compatibilityLevel": .string("BACKWARD")]))
        #expect(request(handler, "PUT", "/config/t-value", .object(["compatibility": .string("none")])).body == .object(["compatibility": .string("NONE")]))
        #expect(request(handler, "POST", "/subjects/t-value/versions", retyped).body == .object(["id": .int(2)]))
        // Deletes: soft first, then for good.
        #expect(code(request(handler, "DELETE", "/subjects/t-value?permanent=true")) == (404, 40405))
        #expect(request(handler, "DELETE", "/subjects/t-value").body == .array([.int(1), .int(2)]))
        #expect(code(request(handler, "GET", "/subjects/t-value/versions")) == (404, 40401))
        #expect(request(handler, "GET", "/subjects?deleted=true").body == .array([.string("t-value")]))
        #expect(request(handler, "DELETE", "/subjects/t-value?permanent=true").body == .array([.int(1), .int(2)]))
        #expect(request(handler, "GET", "/subjects?deleted=true").body == .array([]))
    }

    @Test func theStoreIsReadBackFromItsDirectory() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SchemaRegistryStore(dataDirectory: directory)
        let a = try first.register(#"{"type": "record", "name": "r", "fields": [{"name": "a", "type": "string"}]}"#, in: "x-value")
        let b = try first.register(#"{"type": "enum", "name": "e", "symbols": ["A"]}"#, in: "y-value")
        let firstHandler = SchemaRegistryHandler(store: first)
        _ = request(firstHandler, "PUT", "/config/x-value", .object(["compatibility": .string("FULL_TRANSITIVE")]))
        _ = request(firstHandler, "PUT", "/config", .object(["compatibility": .string("NONE")]))
        _ = try first.deleteSubject("y-value", permanent: false)

        let second = try SchemaRegistryStore(dataDirectory: directory)
        let secondHandler = SchemaRegistryHandler(store: second)
        #expect(try second.version("latest", of: "x-value").id == a)
        #expect(second.subjects(includingDeleted: false) == ["x-value"] && second.subjects(includingDeleted: true) == ["x-value", "y-value"])
        #expect(request(secondHandler, "GET", "/config/x-value").body == .object(["compatibilityLevel": .string("FULL_TRANSITIVE")]))
        #expect(request(secondHandler, "GET", "/config").body == .object(["compatibilityLevel": .string("NONE")]))
        #expect(try second.schema(id: b) == #"{"type":"enum","name":"e","symbols":["A"]}"#)
        let c = try second.register(#"{"type": "record", "name": "z", "fields": []}"#, in: "z-value")
        #expect(c > b)
        // A torn file is an error, never a registry silently empty.
        let path = "\(directory)/schema-registry/registry.json"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(throws: SluiceError.self) { try SchemaRegistryStore(dataDirectory: directory) }
    }
}
