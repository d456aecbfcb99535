import Foundation
import NIOCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// CreateAcls, DescribeAcls and DeleteAcls, and the file that keeps their ACLs.
@Suite struct ACLAdminTests {
    static let allow: Int8 = 3

    static func creation(
        _ name: String, _ operation: ACLOperation, principal: String = "User:alice", pattern: ACLPatternType = .literal,
        resourceType: ACLResourceType = .topic, host: String = "*", permission: ACLPermission = .allow
    ) -> CreateAclsRequest.Creation {
        .init(
            resourceType: resourceType.rawValue, resourceName: name, patternType: pattern.rawValue, principal: principal, host: host,
            operation: operation.rawValue, permissionType: permission.rawValue)
    }

    static let anyFilter = AclBindingFilter(resourceType: 1, resourceName: nil, patternType: 1, principal: nil, host: nil, operation: 1, permissionType: 1)

    @Test func createDescribeAndDelete() throws {
        let broker = try TemporaryBroker()
        defer { broker.remove() }
        let kafka = broker.broker
        let created = kafka.createAcls(CreateAclsRequest(creations: [
            Self.creation("orders", .read),
            Self.creation("orders", .write),
            Self.creation("logs.", .all, principal: "User:*", pattern: .prefixed),
            Self.creation("orders", .read, permission: .deny),
            Self.creation("g", .read, resourceType: .group),
            Self.creation("orders", .read, host: "10.0.0.1"),
            Self.creation("orders", .read, principal: "alice"),
            Self.creation("orders", .clusterAction),
            Self.creation("orders", .read, pattern: .match),
            Self.creation("orders", .read),  // again: kept once
        ]), version: 3)
        #expect(created.results.map(\.errorCode) == [0, 0, 0, 42, 42, 42, 42, 42, 42, 0])
        #expect(created.results[3].errorMessage == "DENY ACLs are not supported: Sluice's ACLs only allow")
        #expect(kafka.acls.all.count == 3)

        let all = kafka.describeAcls(DescribeAclsRequest(filter: Self.anyFilter), version: 3)
        #expect(all.errorCode == 0)
        #expect(all.resources == [
            .init(resourceType: 2, resourceName: "orders", patternType: 3, acls: [
                .init(principal: "User:alice", host: "*", operation: 3, permissionType: 3),
                .init(principal: "User:alice", host: "*", operation: 4, permissionType: 3),
            ]),
            .init(resourceType: 2, resourceName: "logs.", patternType: 4, acls: [.init(principal: "User:*", host: "*", operation: 2, permissionType: 3)]),
        ])
        // MATCH: the bindings whose pattern covers a name.
        var match = Self.anyFilter
        match.resourceType = 2
        match.resourceName = "logs.app"
        match.patternType = 2
        #expect(kafka.describeAcls(DescribeAclsRequest(filter: match), version: 3).resources.map(\.resourceName) == ["logs."])
        // v0 filters are LITERAL.
        var literal = Self.anyFilter
        literal.patternType = 3
        #expect(kafka.describeAcls(DescribeAclsRequest(filter: literal), version: 0).resources.map(\.resourceName) == ["orders"])
        var unknown = Self.anyFilter
        unknown.operation = 0
        #expect(kafka.describeAcls(DescribeAclsRequest(filter: unknown), version: 3).errorCode == 42)

        var writes = Self.anyFilter
        writes.operation = ACLOperation.write.rawValue
        let deleted = kafka.deleteAcls(DeleteAclsRequest(filters: [writes, unknown]), version: 3)
        #expect(deleted.filterResults.count == 2)
        #expect(deleted.filterResults[0].matchingAcls == [
            .init(resourceType: 2, resourceName: "orders", patternType: 3, principal: "User:alice", host: "*", operation: 4, permissionType: 3)
        ])
        #expect(deleted.filterResults[1].errorCode == 42)
        #expect(kafka.acls.all.map(\.operation) == [.read, .all])
    }

    @Test func onlyTrustedPrincipalsMayReadOrChangeACLs() throws {
        let broker = try TemporaryBroker()
        defer { broker.remove() }
        let alice = RequestContext(principal: KafkaPrincipal(user: "alice"), listenerIndex: 0)
        let refused = KafkaErrorCode.clusterAuthorizationFailed.rawValue
        #expect(broker.broker.createAcls(CreateAclsRequest(creations: [Self.creation("orders", .read)]), version: 3, alice).results[0].errorCode == refused)
        #expect(broker.broker.describeAcls(DescribeAclsRequest(filter: Self.anyFilter), version: 3, alice).errorCode == refused)
        #expect(broker.broker.deleteAcls(DeleteAclsRequest(filters: [Self.anyFilter]), version: 3, alice).filterResults[0].errorCode == refused)
        #expect(broker.broker.acls.all.isEmpty)
        let admin = RequestContext(principal: KafkaPrincipal(user: "admin", isSuperuser: true), listenerIndex: 0)
        #expect(broker.broker.createAcls(CreateAclsRequest(creations: [Self.creation("orders", .read)]), version: 3, admin).results[0].errorCode == 0)
        #expect(broker.broker.createAcls(CreateAclsRequest(creations: [Self.creation("orders", .write)]), version: 3, .trusted).results[0].errorCode == 0)
    }

    @Test func aclsSurviveARestartInAFileOnlyTheServerReads() throws {
        let directory = NSTemporaryDirectory() + "sluice-acls-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let broker = try TemporaryBroker(directory: directory)
            _ = broker.broker.createAcls(CreateAclsRequest(creations: [
                Self.creation("orders", .read), Self.creation("logs.", .write, principal: "User:bob", pattern: .prefixed),
            ]), version: 1)
        }
        let path = directory + "/acls.json"
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"patternType\" : \"PREFIXED\"") && text.contains("\"operation\" : \"WRITE\""))

        let restarted = try TemporaryBroker(directory: directory)
        #expect(restarted.broker.acls.all == [
            ACLBinding(resourceName: "orders", principal: "User:alice", operation: .read),
            ACLBinding(resourceName: "logs.", patternType: .prefixed, principal: "User:bob", operation: .write),
        ])
    }
}
