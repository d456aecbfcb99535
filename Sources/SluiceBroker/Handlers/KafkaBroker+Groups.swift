import NIOCore
import SluiceKafkaProtocol

extension KafkaBroker {
    /// This broker coordinates every group, at the address of the listener the client came in on.
    func findCoordinator(_ request: FindCoordinatorRequest, version: Int16, _ context: RequestContext = .trusted) -> FindCoordinatorResponse {
        let address = advertisedAddress(listener: context.listenerIndex)
        let keys = request.keys.isEmpty ? [""] : request.keys
        return FindCoordinatorResponse(coordinators: keys.map { key in
            // Key types 0 (group) and 1 (transaction): this node coordinates both.
            if request.keyType != 0 && request.keyType != 1 {
                return FindCoordinatorResponse.Coordinator(
                    key: key, nodeID: -1, host: "", port: -1, errorCode: KafkaErrorCode.invalidRequest.rawValue,
                    errorMessage: "unknown coordinator key type \(request.keyType)")
            }
            return FindCoordinatorResponse.Coordinator(key: key, nodeID: configuration.nodeID, host: address.host, port: address.port)
        })
    }

    /// Commits offsets; a topic the principal may not READ gets TOPIC_AUTHORIZATION_FAILED.
    /// (Groups themselves are open to every principal: Sluice keeps no group ACLs.)
    func offsetCommit(_ request: OffsetCommitRequest, version: Int16, _ context: RequestContext = .trusted) -> OffsetCommitResponse {
        func answer(_ code: KafkaErrorCode) -> OffsetCommitResponse {
            OffsetCommitResponse(topics: request.topics.map { topic in
                OffsetCommitResponse.Topic(name: topic.name, partitions: topic.partitions.map { .init(partitionIndex: $0.partitionIndex, errorCode: code.rawValue) })
            })
        }
        guard !request.groupID.isEmpty else { return answer(.invalidGroupID) }
        if let error = groups.commitError(group: request.groupID, generation: request.generationIDOrMemberEpoch, memberID: request.memberID) {
            return answer(error)
        }
        var accepted: [(topic: String, partition: Int32, committed: OffsetStore.Committed)] = []
        var results: [OffsetCommitResponse.Topic] = []
        for topic in request.topics {
            var partitions: [OffsetCommitResponse.Partition] = []
            let allowed = isAllowed(context, .read, topic: topic.name)
            for partition in topic.partitions {
                if !allowed {
                    partitions.append(.init(partitionIndex: partition.partitionIndex, errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue))
                } else if topics.log(topic.name, Int(partition.partitionIndex)) == nil {
                    partitions.append(.init(partitionIndex: partition.partitionIndex, errorCode: KafkaErrorCode.unknownTopicOrPartition.rawValue))
                } else if (partition.committedMetadata?.utf8.count ?? 0) > 4096 {
                    partitions.append(.init(partitionIndex: partition.partitionIndex, errorCode: KafkaErrorCode.invalidCommitOffsetSize.rawValue))
                } else {
                    accepted.append((topic.name, partition.partitionIndex, .init(offset: partition.committedOffset, metadata: partition.committedMetadata)))
                    partitions.append(.init(partitionIndex: partition.partitionIndex))
                }
            }
            results.append(OffsetCommitResponse.Topic(name: topic.name, partitions: partitions))
        }
        do {
            try groups.offsets.commit(group: request.groupID, accepted)
        } catch {
            return answer(.kafkaStorageError)
        }
        return OffsetCommitResponse(topics: results)
    }

    /// Committed offsets; as in Kafka, a topic the principal may not DESCRIBE gets
    /// TOPIC_AUTHORIZATION_FAILED when named and is left out when all are asked for.
    func offsetFetch(_ request: OffsetFetchRequest, version: Int16, _ context: RequestContext = .trusted) -> OffsetFetchResponse {
        let store = groups.offsets
        guard let requested = request.topics else {
            var byTopic: [String: [OffsetFetchResponse.Partition]] = [:]
            for entry in store.offsets(group: request.groupID) where isAllowed(context, .describe, topic: entry.topic) {
                byTopic[entry.topic, default: []].append(
                    .init(partitionIndex: entry.partition, committedOffset: entry.committed.offset, metadata: entry.committed.metadata ?? ""))
            }
            return OffsetFetchResponse(topics: byTopic.keys.sorted().map { OffsetFetchResponse.Topic(name: $0, partitions: byTopic[$0]!) })
        }
        return OffsetFetchResponse(topics: requested.map { topic in
            let allowed = isAllowed(context, .describe, topic: topic.name)
            return OffsetFetchResponse.Topic(name: topic.name, partitions: topic.partitionIndexes.map { index in
                guard allowed else {
                    return .init(partitionIndex: index, committedOffset: -1, errorCode: KafkaErrorCode.topicAuthorizationFailed.rawValue)
                }
                let committed = store.offset(group: request.groupID, topic: topic.name, partition: index)
                return .init(partitionIndex: index, committedOffset: committed?.offset ?? -1, metadata: committed?.metadata ?? "")
            })
        })
    }

    func listGroups(_ request: ListGroupsRequest, version: Int16) -> ListGroupsResponse {
        let wanted = Set(request.statesFilter.map { $0.lowercased() })
        return ListGroupsResponse(groups: groups.list().filter { wanted.isEmpty || wanted.contains($0.state.rawValue.lowercased()) }.map { group in
            ListGroupsResponse.Group(groupID: group.id, protocolType: group.protocolType, groupState: group.state.rawValue, groupType: "classic")
        })
    }

    func describeGroups(_ request: DescribeGroupsRequest, version: Int16) -> DescribeGroupsResponse {
        DescribeGroupsResponse(groups: request.groups.map { id in
            guard let group = groups.describe(id) else {
                return DescribeGroupsResponse.Group(groupID: id, groupState: "Dead", protocolType: "", protocolData: "", members: [])
            }
            return DescribeGroupsResponse.Group(
                groupID: id, groupState: group.state.rawValue, protocolType: group.protocolType, protocolData: group.protocolName,
                members: group.members.map { member in
                    DescribeGroupsResponse.Member(
                        memberID: member.id, clientID: member.clientID, clientHost: member.clientHost, memberMetadata: member.metadata,
                        memberAssignment: member.assignment)
                })
        })
    }
}
