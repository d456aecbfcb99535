/// Decides whether a principal may perform an operation on a topic: the broker asks it for
/// Produce (WRITE), Fetch and OffsetCommit (READ), ListOffsets, OffsetFetch and Metadata
/// (DESCRIBE), CreateTopics and automatic creation (CREATE), DeleteTopics (DELETE),
/// CreatePartitions (ALTER) and DescribeConfigs (DESCRIBE_CONFIGS), as Kafka's broker does, and
/// answers a refusal with TOPIC_AUTHORIZATION_FAILED (29).
///
/// The broker never asks about trusted principals (superusers, and the anonymous principal of
/// connections that need no authentication): they may do everything.
package protocol BrokerAuthorizer: Sendable {
    func allows(_ principal: KafkaPrincipal, _ operation: ACLOperation, topic: String) -> Bool
}

/// Allows everything to everyone.
package struct AllowAllAuthorizer: BrokerAuthorizer {
    package init() {}

    package func allows(_ principal: KafkaPrincipal, _ operation: ACLOperation, topic: String) -> Bool { true }
}

/// Kafka's ACL authorizer over the broker's ``ACLStore``: a principal may perform an operation on
/// a topic when an ACL whose pattern covers the topic grants it to that principal or to
/// `User:*`. When no ACL covers the topic at all, `allowEveryoneIfNoACLFound` decides (Kafka's
/// `allow.everyone.if.no.acl.found`, false by default).
///
/// - Complexity: O(ACLs) per question, under the store's lock.
package struct ACLAuthorizer: BrokerAuthorizer {
    package let store: ACLStore
    package let allowEveryoneIfNoACLFound: Bool

    package init(store: ACLStore, allowEveryoneIfNoACLFound: Bool = false) {
        self.store = store
        self.allowEveryoneIfNoACLFound = allowEveryoneIfNoACLFound
    }

    package func allows(_ principal: KafkaPrincipal, _ operation: ACLOperation, topic: String) -> Bool {
        let covering = store.bindings(onTopic: topic)
        if covering.isEmpty { return allowEveryoneIfNoACLFound }
        return covering.contains { $0.permission == .allow && $0.applies(to: principal) && $0.grants(operation) }
    }
}
