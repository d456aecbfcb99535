// Kafka's ACL vocabulary (org.apache.kafka.common.resource.ResourceType and PatternType,
// org.apache.kafka.common.acl.AclOperation and AclPermissionType): the codes the CreateAcls,
// DescribeAcls and DeleteAcls messages carry, and the names Kafka's tools print (which the ACL
// file stores). ANY and MATCH appear only in filters.

/// The kind of resource an ACL is on.
package enum ACLResourceType: Int8, Sendable, CaseIterable {
    case unknown = 0, any = 1, topic = 2, group = 3, cluster = 4, transactionalID = 5, delegationToken = 6, user = 7

    package var kafkaName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .any: "ANY"
        case .topic: "TOPIC"
        case .group: "GROUP"
        case .cluster: "CLUSTER"
        case .transactionalID: "TRANSACTIONAL_ID"
        case .delegationToken: "DELEGATION_TOKEN"
        case .user: "USER"
        }
    }
}

/// How an ACL's resource name matches resource names.
package enum ACLPatternType: Int8, Sendable, CaseIterable {
    /// In filters: LITERAL or PREFIXED ACLs whose pattern covers the filter's name.
    case unknown = 0, any = 1, match = 2
    /// The name itself (or, for `*`, every name).
    case literal = 3
    /// Every name that begins with it.
    case prefixed = 4

    package var kafkaName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .any: "ANY"
        case .match: "MATCH"
        case .literal: "LITERAL"
        case .prefixed: "PREFIXED"
        }
    }
}

/// What an ACL allows.
package enum ACLOperation: Int8, Sendable, CaseIterable {
    case unknown = 0, any = 1, all = 2, read = 3, write = 4, create = 5, delete = 6, alter = 7, describe = 8, clusterAction = 9
    case describeConfigs = 10, alterConfigs = 11, idempotentWrite = 12, createTokens = 13, describeTokens = 14

    package var kafkaName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .any: "ANY"
        case .all: "ALL"
        case .read: "READ"
        case .write: "WRITE"
        case .create: "CREATE"
        case .delete: "DELETE"
        case .alter: "ALTER"
        case .describe: "DESCRIBE"
        case .clusterAction: "CLUSTER_ACTION"
        case .describeConfigs: "DESCRIBE_CONFIGS"
        case .alterConfigs: "ALTER_CONFIGS"
        case .idempotentWrite: "IDEMPOTENT_WRITE"
        case .createTokens: "CREATE_TOKENS"
        case .describeTokens: "DESCRIBE_TOKENS"
        }
    }

    /// The operations an ACL on a topic may name (Kafka's operations on TOPIC resources).
    static let onTopics: Set<ACLOperation> = [.all, .read, .write, .create, .delete, .alter, .describe, .describeConfigs, .alterConfigs]
}

/// Whether an ACL allows or denies.
package enum ACLPermission: Int8, Sendable, CaseIterable {
    case unknown = 0, any = 1, deny = 2, allow = 3

    package var kafkaName: String {
        switch self {
        case .unknown: "UNKNOWN"
        case .any: "ANY"
        case .deny: "DENY"
        case .allow: "ALLOW"
        }
    }
}
