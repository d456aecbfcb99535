import NIOCore

@testable import SluiceKafkaProtocol

extension MessageSamples {
    /// A consumer subscription and assignment as opaque bytes (the groups carry them unread).
    static let subscription = Sample.bytes([0, 1, 0, 0, 0, 1, 0, 6, 0x6F, 0x72, 0x64, 0x65, 0x72, 0x73, 0xFF, 0xFF, 0xFF, 0xFF])
    static let assignment = Sample.bytes([0, 1, 0, 0, 0, 1, 0, 6, 0x6F, 0x72, 0x64, 0x65, 0x72, 0x73, 0, 0, 0, 1, 0, 0, 0, 0])

    /// FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
    /// ListGroups, DescribeGroups.
    static let groups: [MessageCase] = [
        MessageCase(FindCoordinatorRequest.self) { version in
            FindCoordinatorRequest(keyType: version >= 1 ? 1 : 0, keys: version >= 4 ? ["group-a", "group-b"] : ["group-a"])
        },
        MessageCase(FindCoordinatorResponse.self) { version in
            if version >= 4 {
                return FindCoordinatorResponse(throttleTimeMs: 2, coordinators: [
                    .init(key: "group-a", nodeID: 1, host: "localhost", port: 9092),
                    .init(key: "group-b", nodeID: -1, host: "", port: -1, errorCode: 15, errorMessage: "not available"),
                ])
            }
            return FindCoordinatorResponse(
                throttleTimeMs: version >= 1 ? 2 : 0,
                coordinators: [.init(key: "", nodeID: 1, host: "localhost", port: 9092, errorCode: 0, errorMessage: version >= 1 ? "none" : nil)]
            )
        },
        MessageCase(JoinGroupRequest.self) { version in
            var request = JoinGroupRequest(
                groupID: "group-a",
                sessionTimeoutMs: 45_000,
                memberID: "rdkafka-1234",
                protocolType: "consumer",
                protocols: [.init(name: "range", metadata: subscription), .init(name: "roundrobin", metadata: ByteBuffer())]
            )
            if version >= 1 { request.rebalanceTimeoutMs = 300_000 }
            if version >= 5 { request.groupInstanceID = "instance-1" }
            if version >= 8 { request.reason = "rebalance failed due to 'The group member needs to have a valid member id'" }
            return request
        },
        MessageCase(JoinGroupResponse.self) { version in
            var leader = JoinGroupResponse.Member(memberID: "m-1", metadata: subscription)
            if version >= 5 { leader.groupInstanceID = "instance-1" }
            var response = JoinGroupResponse(
                errorCode: 0,
                generationID: 3,
                protocolName: "range",
                leader: "m-1",
                memberID: "m-1",
                members: [leader, .init(memberID: "m-2", metadata: subscription)]
            )
            if version >= 2 { response.throttleTimeMs = 1 }
            if version >= 7 { response.protocolType = "consumer" }
            if version >= 9 { response.skipAssignment = true }
            return response
        },
        MessageCase(SyncGroupRequest.self) { version in
            var request = SyncGroupRequest(
                groupID: "group-a",
                generationID: 3,
                memberID: "m-1",
                assignments: [.init(memberID: "m-1", assignment: assignment), .init(memberID: "m-2", assignment: ByteBuffer())]
            )
            if version >= 3 { request.groupInstanceID = "instance-1" }
            if version >= 5 {
                request.protocolType = "consumer"
                request.protocolName = "range"
            }
            return request
        },
        MessageCase(SyncGroupResponse.self) { version in
            var response = SyncGroupResponse(errorCode: 0, assignment: assignment)
            if version >= 1 { response.throttleTimeMs = 1 }
            if version >= 5 {
                response.protocolType = "consumer"
                response.protocolName = "range"
            }
            return response
        },
        MessageCase(HeartbeatRequest.self) { version in
            HeartbeatRequest(groupID: "group-a", generationID: 3, memberID: "m-1", groupInstanceID: version >= 3 ? "instance-1" : nil)
        },
        MessageCase(HeartbeatResponse.self) { version in
            HeartbeatResponse(throttleTimeMs: version >= 1 ? 6 : 0, errorCode: 27)
        },
        MessageCase(LeaveGroupRequest.self) { version in
            if version >= 3 {
                return LeaveGroupRequest(groupID: "group-a", members: [
                    .init(memberID: "m-1", groupInstanceID: "instance-1", reason: version >= 5 ? "the consumer is being closed" : nil),
                    .init(memberID: "m-2"),
                ])
            }
            return LeaveGroupRequest(groupID: "group-a", members: [.init(memberID: "m-1")])
        },
        MessageCase(LeaveGroupResponse.self) { version in
            var response = LeaveGroupResponse(errorCode: 0)
            if version >= 1 { response.throttleTimeMs = 1 }
            if version >= 3 { response.members = [.init(memberID: "m-1", groupInstanceID: "instance-1"), .init(memberID: "m-9", errorCode: 25)] }
            return response
        },
        MessageCase(OffsetCommitRequest.self) { version in
            var partition = OffsetCommitRequest.Partition(partitionIndex: 0, committedOffset: 1_234, committedMetadata: "meta")
            if version >= 6 { partition.committedLeaderEpoch = 5 }
            var request = OffsetCommitRequest(
                groupID: "group-a",
                generationIDOrMemberEpoch: 3,
                memberID: "m-1",
                topics: [.init(name: "orders", partitions: [partition, .init(partitionIndex: 1, committedOffset: 0)])]
            )
            if version >= 7 { request.groupInstanceID = "instance-1" }
            if version <= 4 { request.retentionTimeMs = 86_400_000 }
            return request
        },
        MessageCase(OffsetCommitResponse.self) { version in
            OffsetCommitResponse(
                throttleTimeMs: version >= 3 ? 8 : 0,
                topics: [.init(name: "orders", partitions: [.init(partitionIndex: 0), .init(partitionIndex: 1, errorCode: 22)])]
            )
        },
        MessageCase(OffsetFetchRequest.self) { version in
            OffsetFetchRequest(
                groupID: "group-a",
                topics: [.init(name: "orders", partitionIndexes: [0, 1, 2]), .init(name: "payments", partitionIndexes: [])],
                requireStable: version >= 7
            )
        },
        MessageCase(OffsetFetchResponse.self) { version in
            var partition = OffsetFetchResponse.Partition(partitionIndex: 0, committedOffset: 1_234, metadata: "meta")
            if version >= 5 { partition.committedLeaderEpoch = 5 }
            var response = OffsetFetchResponse(topics: [
                .init(name: "orders", partitions: [partition, .init(partitionIndex: 1, committedOffset: -1, errorCode: 3)]),
            ])
            if version >= 3 { response.throttleTimeMs = 4 }
            if version >= 2 { response.errorCode = 14 }
            return response
        },
        MessageCase(ListGroupsRequest.self) { version in
            ListGroupsRequest(statesFilter: version >= 4 ? ["Stable", "Empty"] : [], typesFilter: version >= 5 ? ["classic"] : [])
        },
        MessageCase(ListGroupsResponse.self) { version in
            var group = ListGroupsResponse.Group(groupID: "group-a", protocolType: "consumer")
            if version >= 4 { group.groupState = "Stable" }
            if version >= 5 { group.groupType = "classic" }
            return ListGroupsResponse(throttleTimeMs: version >= 1 ? 3 : 0, groups: [group, .init(groupID: "committer", protocolType: "")])
        },
        MessageCase(DescribeGroupsRequest.self) { version in
            DescribeGroupsRequest(groups: ["group-a", "group-b"], includeAuthorizedOperations: version >= 3)
        },
        MessageCase(DescribeGroupsResponse.self) { version in
            var member = DescribeGroupsResponse.Member(
                memberID: "m-1",
                clientID: "rdkafka",
                clientHost: "/127.0.0.1",
                memberMetadata: subscription,
                memberAssignment: assignment
            )
            if version >= 4 { member.groupInstanceID = "instance-1" }
            var group = DescribeGroupsResponse.Group(groupID: "group-a", groupState: "Stable", protocolType: "consumer", protocolData: "range", members: [member])
            if version >= 3 { group.authorizedOperations = 0x0F }
            return DescribeGroupsResponse(
                throttleTimeMs: version >= 1 ? 2 : 0,
                groups: [group, .init(errorCode: 16, groupID: "group-b", groupState: "Dead", protocolType: "", protocolData: "", members: [])]
            )
        },
    ]
}
