import NIOCore

@testable import SluiceKafkaProtocol

extension MessageSamples {
    /// SaslHandshake, SaslAuthenticate, DescribeAcls, CreateAcls, DeleteAcls.
    static let security: [MessageCase] = [
        MessageCase(SaslHandshakeRequest.self) { _ in SaslHandshakeRequest(mechanism: "SCRAM-SHA-256") },
        MessageCase(SaslHandshakeResponse.self) { _ in SaslHandshakeResponse(errorCode: 33, mechanisms: ["PLAIN", "SCRAM-SHA-256"]) },
        MessageCase(SaslAuthenticateRequest.self) { _ in SaslAuthenticateRequest(authBytes: ByteBuffer(string: "n,,n=alice,r=nonce")) },
        MessageCase(SaslAuthenticateResponse.self) { version in
            SaslAuthenticateResponse(
                errorCode: 58, errorMessage: "Authentication failed", authBytes: ByteBuffer(string: "v=signature"),
                sessionLifetimeMs: version >= 1 ? 3_600_000 : 0)
        },
        MessageCase(DescribeAclsRequest.self) { version in
            DescribeAclsRequest(filter: AclBindingFilter(
                resourceType: 2, resourceName: "orders", patternType: version >= 1 ? 2 : 3, principal: "User:alice", host: nil, operation: 1,
                permissionType: 3))
        },
        MessageCase(DescribeAclsResponse.self) { version in
            DescribeAclsResponse(
                throttleTimeMs: 3, errorCode: 0, errorMessage: nil,
                resources: [
                    .init(resourceType: 2, resourceName: "orders", acls: [
                        .init(principal: "User:alice", host: "*", operation: 3, permissionType: 3),
                        .init(principal: "User:bob", host: "*", operation: 4, permissionType: 3),
                    ]),
                    .init(resourceType: 2, resourceName: "logs.", patternType: version >= 1 ? 4 : 3, acls: []),
                ])
        },
        MessageCase(CreateAclsRequest.self) { version in
            CreateAclsRequest(creations: [
                .init(resourceType: 2, resourceName: "orders", principal: "User:alice", host: "*", operation: 3, permissionType: 3),
                .init(resourceType: 2, resourceName: "logs.", patternType: version >= 1 ? 4 : 3, principal: "User:*", host: "*", operation: 4, permissionType: 2),
            ])
        },
        MessageCase(CreateAclsResponse.self) { _ in
            CreateAclsResponse(throttleTimeMs: 1, results: [.init(), .init(errorCode: 42, errorMessage: "DENY ACLs are not supported")])
        },
        MessageCase(DeleteAclsRequest.self) { version in
            DeleteAclsRequest(filters: [
                AclBindingFilter(resourceType: 1, resourceName: nil, patternType: version >= 1 ? 1 : 3, principal: nil, host: nil, operation: 1, permissionType: 1),
                AclBindingFilter(resourceType: 2, resourceName: "orders", principal: "User:alice", host: "*", operation: 3, permissionType: 3),
            ])
        },
        MessageCase(DeleteAclsResponse.self) { version in
            DeleteAclsResponse(throttleTimeMs: 2, filterResults: [
                .init(matchingAcls: [
                    .init(resourceType: 2, resourceName: "orders", principal: "User:alice", host: "*", operation: 3, permissionType: 3),
                    .init(
                        errorCode: 31, errorMessage: "not allowed", resourceType: 2, resourceName: "logs.", patternType: version >= 1 ? 4 : 3,
                        principal: "User:bob", host: "*", operation: 4, permissionType: 3),
                ]),
                .init(errorCode: 42, errorMessage: "unknown resource type", matchingAcls: []),
            ])
        },
    ]
}
