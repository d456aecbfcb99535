import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// The SASL and ACL messages written out by hand from their definitions in apache/kafka
/// (SaslHandshakeRequest.json … DeleteAclsResponse.json) and the protocol guide's primitive
/// types, to check the codecs against the spec rather than against themselves.
@Suite struct SecurityGoldenBytesTests {
    private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

    /// Writes `message` at `version` and reads the bytes back.
    private func check<Message: KafkaMessage>(_ message: Message, version: Int16, _ expected: [UInt8]) throws {
        var written = ByteBuffer()
        message.write(to: &written, version: version)
        #expect(Array(written.readableBytesView) == expected, "\(Message.self) v\(version)")
        var reading = ByteBuffer(bytes: expected)
        #expect(try Message(from: &reading, version: version) == message)
        #expect(reading.readableBytes == 0)
    }

    @Test func saslHandshakeV1RequestFrame() throws {
        var frame = ByteBuffer()
        SaslHandshakeRequest(mechanism: "PLAIN").writeFrame(to: &frame, version: 1, correlationID: 2, clientID: "rdkafka")
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0x18,  // size: 24 bytes follow
            0x00, 0x11,  // api key: 17 (SaslHandshake)
            0x00, 0x01,  // api version: 1
            0x00, 0x00, 0x00, 0x02,  // correlation id: 2
            0x00, 0x07,  // client id: INT16 length 7 …
        ] + bytes("rdkafka") + [
            // Request header v1: SaslHandshake is never flexible, so no tagged fields.
            0x00, 0x05,  // mechanism: STRING, INT16 length 5 …
        ] + bytes("PLAIN")
        #expect(Array(frame.readableBytesView) == expected)
    }

    @Test func saslHandshakeResponseListsTheMechanisms() throws {
        let response = SaslHandshakeResponse(errorCode: 33, mechanisms: ["PLAIN", "SCRAM-SHA-256"])
        let body: [UInt8] = [
            0x00, 0x21,  // error code: 33 (UNSUPPORTED_SASL_MECHANISM)
            0x00, 0x00, 0x00, 0x02,  // mechanisms: ARRAY, INT32 count 2
            0x00, 0x05,
        ] + bytes("PLAIN") + [0x00, 0x0D] + bytes("SCRAM-SHA-256")
        try check(response, version: 0, body)
        try check(response, version: 1, body)
        var frame = ByteBuffer()
        response.writeFrame(to: &frame, version: 1, correlationID: 2)
        // Response header v0: the correlation id alone.
        #expect(Array(frame.readableBytesView) == [0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x02] + body)
    }

    @Test func saslAuthenticateRequestInClassicAndFlexibleVersions() throws {
        let token = [0x00] + bytes("alice") + [0x00] + bytes("secret")  // PLAIN: authzid NUL authcid NUL password
        let request = SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: token))
        // v0 and v1: BYTES, INT32 length 13.
        try check(request, version: 0, [0x00, 0x00, 0x00, 0x0D] + token)
        try check(request, version: 1, [0x00, 0x00, 0x00, 0x0D] + token)
        // v2: COMPACT_BYTES, unsigned varint 13 + 1, then the body's tagged fields (none).
        try check(request, version: 2, [0x0E] + token + [0x00])

        var frame = ByteBuffer()
        request.writeFrame(to: &frame, version: 2, correlationID: 3, clientID: "rdkafka")
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0x21,  // size: 33 bytes follow
            0x00, 0x24, 0x00, 0x02,  // api key 36 (SaslAuthenticate), version 2
            0x00, 0x00, 0x00, 0x03,  // correlation id: 3
            0x00, 0x07,  // client id: INT16 length 7 (never compact) …
        ] + bytes("rdkafka") + [
            0x00,  // request header v2: no tagged fields
            0x0E,
        ] + token + [0x00]
        #expect(Array(frame.readableBytesView) == expected)
    }

    @Test func saslAuthenticateResponses() throws {
        // v0: no session lifetime.
        try check(
            SaslAuthenticateResponse(authBytes: ByteBuffer(string: "v=xyz")), version: 0,
            [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x05] + bytes("v=xyz"))
        // v1: a successful PLAIN login: no error, null message, empty bytes, lifetime 0 (INT64).
        try check(
            SaslAuthenticateResponse(), version: 1,
            [0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])
        // v2: a failure, flexible.
        let failure = SaslAuthenticateResponse(errorCode: 58, errorMessage: "bad")
        try check(
            failure, version: 2,
            [
                0x00, 0x3A,  // error code: 58 (SASL_AUTHENTICATION_FAILED)
                0x04, 0x62, 0x61, 0x64,  // error message: COMPACT_NULLABLE_STRING "bad"
                0x01,  // auth bytes: COMPACT_BYTES, empty
                0, 0, 0, 0, 0, 0, 0, 0,  // session lifetime: 0
                0x00,  // tagged fields: none
            ])
        var frame = ByteBuffer()
        failure.writeFrame(to: &frame, version: 2, correlationID: 3)
        // Response header v1: correlation id, then tagged fields.
        #expect(Array(frame.readableBytesView.prefix(9)) == [0x00, 0x00, 0x00, 0x15, 0x00, 0x00, 0x00, 0x03, 0x00])
    }

    @Test func createAclsRequests() throws {
        let v0Creation = CreateAclsRequest.Creation(
            resourceType: 2, resourceName: "orders", principal: "User:alice", host: "*", operation: 3, permissionType: 3)
        // v0: no pattern type.
        try check(
            CreateAclsRequest(creations: [v0Creation]), version: 0,
            [0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x06] + bytes("orders") + [0x00, 0x0A] + bytes("User:alice")
                + [0x00, 0x01, 0x2A, 0x03, 0x03])
        // v1: the pattern type follows the resource name.
        try check(
            CreateAclsRequest(creations: [v0Creation]), version: 1,
            [
                0x00, 0x00, 0x00, 0x01,  // creations: INT32 count 1
                0x02,  // resource type: TOPIC
                0x00, 0x06,
            ] + bytes("orders") + [
                0x03,  // pattern type: LITERAL
                0x00, 0x0A,
            ] + bytes("User:alice") + [
                0x00, 0x01, 0x2A,  // host: "*"
                0x03,  // operation: READ
                0x03,  // permission type: ALLOW
            ])
        // v2: flexible.
        var prefixed = v0Creation
        prefixed.patternType = 4
        prefixed.operation = 4
        try check(
            CreateAclsRequest(creations: [prefixed]), version: 2,
            [0x02, 0x02, 0x07] + bytes("orders") + [0x04, 0x0B] + bytes("User:alice") + [0x02, 0x2A, 0x04, 0x03, 0x00, 0x00])
    }

    @Test func createAclsResponse() throws {
        let response = CreateAclsResponse(results: [.init(), .init(errorCode: 42, errorMessage: "no")])
        try check(
            response, version: 1,
            [0, 0, 0, 0, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x2A, 0x00, 0x02] + bytes("no"))
        try check(response, version: 3, [0, 0, 0, 0, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A, 0x03] + bytes("no") + [0x00, 0x00])
    }

    @Test func describeAclsRequests() throws {
        // v0: any TOPIC resource of any name, for User:alice, any host, any operation and permission.
        let filter = AclBindingFilter(resourceType: 2, resourceName: nil, principal: "User:alice", host: nil, operation: 1, permissionType: 1)
        try check(
            DescribeAclsRequest(filter: filter), version: 0,
            [0x02, 0xFF, 0xFF, 0x00, 0x0A] + bytes("User:alice") + [0xFF, 0xFF, 0x01, 0x01])
        var matching = filter
        matching.resourceName = "orders"
        matching.patternType = 2
        try check(
            DescribeAclsRequest(filter: matching), version: 1,
            [0x02, 0x00, 0x06] + bytes("orders") + [0x02, 0x00, 0x0A] + bytes("User:alice") + [0xFF, 0xFF, 0x01, 0x01])
        try check(
            DescribeAclsRequest(filter: matching), version: 2,
            [0x02, 0x07] + bytes("orders") + [0x02, 0x0B] + bytes("User:alice") + [0x00, 0x01, 0x01, 0x00])
    }

    @Test func describeAclsResponses() throws {
        let response = DescribeAclsResponse(resources: [
            .init(resourceType: 2, resourceName: "orders", acls: [.init(principal: "User:alice", host: "*", operation: 3, permissionType: 3)])
        ])
        try check(
            response, version: 1,
            [
                0x00, 0x00, 0x00, 0x00,  // throttle time
                0x00, 0x00,  // error code
                0xFF, 0xFF,  // error message: null
                0x00, 0x00, 0x00, 0x01,  // resources: INT32 count 1
                0x02, 0x00, 0x06,
            ] + bytes("orders") + [
                0x03,  // pattern type: LITERAL
                0x00, 0x00, 0x00, 0x01,  // acls: INT32 count 1
                0x00, 0x0A,
            ] + bytes("User:alice") + [0x00, 0x01, 0x2A, 0x03, 0x03])
        try check(
            response, version: 2,
            [0, 0, 0, 0, 0x00, 0x00, 0x00, 0x02, 0x02, 0x07] + bytes("orders") + [0x03, 0x02, 0x0B] + bytes("User:alice")
                + [0x02, 0x2A, 0x03, 0x03, 0x00, 0x00, 0x00])
        try check(
            DescribeAclsResponse(errorCode: 31, errorMessage: "no", resources: []), version: 0,
            [0, 0, 0, 0, 0x00, 0x1F, 0x00, 0x02] + bytes("no") + [0, 0, 0, 0])
    }

    @Test func deleteAclsRequestAndResponse() throws {
        let filter = AclBindingFilter(resourceType: 2, resourceName: "orders", principal: nil, host: nil, operation: 1, permissionType: 1)
        try check(
            DeleteAclsRequest(filters: [filter]), version: 2,
            [
                0x02,  // filters: COMPACT_ARRAY, count 1 + 1
                0x02, 0x07,
            ] + bytes("orders") + [
                0x03,  // pattern type: LITERAL
                0x00, 0x00,  // principal and host: null (compact length 0)
                0x01, 0x01,  // operation and permission: ANY
                0x00, 0x00,  // tagged fields of the filter and of the request
            ])
        try check(
            DeleteAclsRequest(filters: [filter]), version: 1,
            [0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x06] + bytes("orders") + [0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x01])
        let response = DeleteAclsResponse(filterResults: [
            .init(matchingAcls: [
                .init(resourceType: 2, resourceName: "orders", patternType: 4, principal: "User:bob", host: "*", operation: 4, permissionType: 3)
            ])
        ])
        try check(
            response, version: 1,
            [
                0x00, 0x00, 0x00, 0x00,  // throttle time
                0x00, 0x00, 0x00, 0x01,  // filter results: INT32 count 1
                0x00, 0x00, 0xFF, 0xFF,  // error code, error message: null
                0x00, 0x00, 0x00, 0x01,  // matching acls: INT32 count 1
                0x00, 0x00, 0xFF, 0xFF,  // deletion error code, error message: null
                0x02, 0x00, 0x06,
            ] + bytes("orders") + [0x04, 0x00, 0x08] + bytes("User:bob") + [0x00, 0x01, 0x2A, 0x04, 0x03])
        try check(
            response, version: 2,
            [0, 0, 0, 0, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x07] + bytes("orders") + [0x04, 0x09] + bytes("User:bob")
                + [0x02, 0x2A, 0x04, 0x03, 0x00, 0x00, 0x00])
    }
}
