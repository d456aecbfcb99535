/// One access-control entry on a resource pattern (Kafka's `AclBinding`): `principal` may do
/// `operation` on the resources `resourceName` and `patternType` cover.
///
/// - Invariant: in the store, `resourceType` is TOPIC, `patternType` LITERAL or PREFIXED, `host`
///   `*`, `operation` one of ``ACLOperation/onTopics`` and `permission` ALLOW (``validated(_:)``
///   refuses the rest).
package struct ACLBinding: Sendable, Hashable {
    package var resourceType: ACLResourceType
    package var resourceName: String
    package var patternType: ACLPatternType
    /// `User:alice`, or `User:*` for every user.
    package var principal: String
    package var host: String
    package var operation: ACLOperation
    package var permission: ACLPermission

    package init(
        resourceType: ACLResourceType = .topic, resourceName: String, patternType: ACLPatternType = .literal, principal: String,
        host: String = "*", operation: ACLOperation, permission: ACLPermission = .allow
    ) {
        self.resourceType = resourceType
        self.resourceName = resourceName
        self.patternType = patternType
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission = permission
    }

    /// Whether the pattern covers the resource called `name`: the literal name or the literal
    /// wildcard `*`, or a name the prefix begins (Kafka's matching).
    func covers(_ name: String) -> Bool {
        switch patternType {
        case .literal: resourceName == name || resourceName == "*"
        case .prefixed: name.hasPrefix(resourceName)
        case .unknown, .any, .match: false
        }
    }

    /// Whether the entry names `principal` (or every user).
    func applies(to principal: KafkaPrincipal) -> Bool {
        self.principal == "User:*" || self.principal == principal.description
    }

    /// Whether the entry grants `wanted`, with Kafka's implications: ALL grants everything;
    /// READ, WRITE, DELETE and ALTER grant DESCRIBE; ALTER_CONFIGS grants DESCRIBE_CONFIGS.
    func grants(_ wanted: ACLOperation) -> Bool {
        if operation == wanted || operation == .all { return true }
        switch wanted {
        case .describe: return [.read, .write, .delete, .alter].contains(operation)
        case .describeConfigs: return operation == .alterConfigs
        case .unknown, .any, .all, .read, .write, .create, .delete, .alter, .clusterAction, .alterConfigs, .idempotentWrite, .createTokens,
             .describeTokens:
            return false
        }
    }

    /// `binding` if the broker keeps and enforces bindings like it, else why not (the message
    /// CreateAcls answers INVALID_REQUEST with).
    static func validated(_ binding: ACLBinding) -> Result<ACLBinding, ACLValidationError> {
        guard binding.resourceType == .topic else {
            return .failure(ACLValidationError("ACLs on \(binding.resourceType.kafkaName) resources are not supported: Sluice keeps ACLs on topics only"))
        }
        guard binding.patternType == .literal || binding.patternType == .prefixed else {
            return .failure(ACLValidationError("Invalid pattern type \(binding.patternType.kafkaName): an ACL is LITERAL or PREFIXED"))
        }
        guard !binding.resourceName.isEmpty else { return .failure(ACLValidationError("Resource name must not be empty")) }
        guard binding.principal.hasPrefix("User:"), binding.principal.count > 5 else {
            return .failure(ACLValidationError("Invalid principal \(binding.principal): expected User:<name> or User:*"))
        }
        guard binding.host == "*" else {
            return .failure(ACLValidationError("Host \(binding.host) is not supported: Sluice's ACLs apply to every host (*)"))
        }
        guard ACLOperation.onTopics.contains(binding.operation) else {
            return .failure(ACLValidationError("Operation \(binding.operation.kafkaName) does not apply to topics"))
        }
        switch binding.permission {
        case .allow: return .success(binding)
        case .deny: return .failure(ACLValidationError("DENY ACLs are not supported: Sluice's ACLs only allow"))
        case .unknown, .any: return .failure(ACLValidationError("Invalid permission type \(binding.permission.kafkaName)"))
        }
    }
}

/// Why an ACL cannot be created, or a filter cannot be used.
package struct ACLValidationError: Error, Equatable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Which bindings a DescribeAcls or DeleteAcls request selects (Kafka's `AclBindingFilter`):
/// nil names and ANY codes match every value; the MATCH pattern type matches the bindings whose
/// pattern covers the name.
package struct ACLFilter: Sendable, Equatable {
    package var resourceType: ACLResourceType
    package var resourceName: String?
    package var patternType: ACLPatternType
    package var principal: String?
    package var host: String?
    package var operation: ACLOperation
    package var permission: ACLPermission

    package init(
        resourceType: ACLResourceType = .any, resourceName: String? = nil, patternType: ACLPatternType = .any, principal: String? = nil,
        host: String? = nil, operation: ACLOperation = .any, permission: ACLPermission = .any
    ) {
        self.resourceType = resourceType
        self.resourceName = resourceName
        self.patternType = patternType
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission = permission
    }

    /// Whether `binding` is selected, as Kafka's `ResourcePatternFilter` and
    /// `AccessControlEntryFilter` decide.
    package func matches(_ binding: ACLBinding) -> Bool {
        guard resourceType == .any || resourceType == binding.resourceType else { return false }
        guard patternType == .any || patternType == .match || patternType == binding.patternType else { return false }
        if let resourceName {
            if patternType == .match {
                guard binding.covers(resourceName) else { return false }
            } else {
                guard resourceName == binding.resourceName else { return false }
            }
        }
        if let principal, principal != binding.principal { return false }
        if let host, host != binding.host { return false }
        guard operation == .any || operation == binding.operation else { return false }
        return permission == .any || permission == binding.permission
    }

    /// Whether a code is UNKNOWN (0) or one Kafka does not define: such a filter is refused
    /// with INVALID_REQUEST, as Kafka refuses it.
    var isUnknown: Bool {
        resourceType == .unknown || patternType == .unknown || operation == .unknown || permission == .unknown
    }
}
