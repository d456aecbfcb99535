import SluiceKafkaProtocol

// Kafka's ACL admin APIs (KIP-140 and, for patterns, KIP-290), over the broker's ACLStore. Only
// trusted principals (superusers, and unauthenticated clients where authentication is
// optional) may read or change ACLs; others get CLUSTER_AUTHORIZATION_FAILED, as a Kafka user
// without ALTER or DESCRIBE on the cluster does.
extension KafkaBroker {
    private static let clusterRefusal = "Only superusers may read or change ACLs."

    func createAcls(_ request: CreateAclsRequest, version: Int16, _ context: RequestContext = .trusted) -> CreateAclsResponse {
        guard context.isTrusted else {
            return CreateAclsResponse(results: request.creations.map { _ in
                .init(errorCode: KafkaErrorCode.clusterAuthorizationFailed.rawValue, errorMessage: Self.clusterRefusal)
            })
        }
        var results: [CreateAclsResponse.Result] = []
        var accepted: [(index: Int, binding: ACLBinding)] = []
        for creation in request.creations {
            switch Self.binding(of: creation) {
            case .success(let binding):
                accepted.append((results.count, binding))
                results.append(.init())
            case .failure(let error):
                results.append(.init(errorCode: KafkaErrorCode.invalidRequest.rawValue, errorMessage: error.description))
            }
        }
        do {
            try acls.add(accepted.map(\.binding))
        } catch {
            for (index, _) in accepted {
                results[index] = .init(errorCode: KafkaErrorCode.kafkaStorageError.rawValue, errorMessage: error.message)
            }
        }
        return CreateAclsResponse(results: results)
    }

    func describeAcls(_ request: DescribeAclsRequest, version: Int16, _ context: RequestContext = .trusted) -> DescribeAclsResponse {
        guard context.isTrusted else {
            return DescribeAclsResponse(
                errorCode: KafkaErrorCode.clusterAuthorizationFailed.rawValue, errorMessage: Self.clusterRefusal, resources: [])
        }
        let filter: ACLFilter
        switch Self.filter(of: request.filter) {
        case .success(let valid): filter = valid
        case .failure(let error):
            return DescribeAclsResponse(errorCode: KafkaErrorCode.invalidRequest.rawValue, errorMessage: error.description, resources: [])
        }
        // One resource per pattern, in the order its first binding was created.
        var resources: [DescribeAclsResponse.Resource] = []
        for binding in acls.bindings(matching: filter) {
            let acl = DescribeAclsResponse.Acl(
                principal: binding.principal, host: binding.host, operation: binding.operation.rawValue, permissionType: binding.permission.rawValue)
            if let index = resources.firstIndex(where: {
                $0.resourceType == binding.resourceType.rawValue && $0.resourceName == binding.resourceName
                    && $0.patternType == binding.patternType.rawValue
            }) {
                resources[index].acls.append(acl)
            } else {
                resources.append(.init(
                    resourceType: binding.resourceType.rawValue, resourceName: binding.resourceName, patternType: binding.patternType.rawValue,
                    acls: [acl]))
            }
        }
        return DescribeAclsResponse(resources: resources)
    }

    func deleteAcls(_ request: DeleteAclsRequest, version: Int16, _ context: RequestContext = .trusted) -> DeleteAclsResponse {
        guard context.isTrusted else {
            return DeleteAclsResponse(filterResults: request.filters.map { _ in
                .init(errorCode: KafkaErrorCode.clusterAuthorizationFailed.rawValue, errorMessage: Self.clusterRefusal, matchingAcls: [])
            })
        }
        var results: [DeleteAclsResponse.FilterResult?] = []
        var filters: [ACLFilter] = []
        for wire in request.filters {
            switch Self.filter(of: wire) {
            case .success(let filter):
                filters.append(filter)
                results.append(nil)
            case .failure(let error):
                results.append(.init(errorCode: KafkaErrorCode.invalidRequest.rawValue, errorMessage: error.description, matchingAcls: []))
            }
        }
        let matched: [[ACLBinding]]
        do {
            matched = try acls.remove(matching: filters)
        } catch {
            return DeleteAclsResponse(filterResults: results.map { result in
                result ?? .init(errorCode: KafkaErrorCode.kafkaStorageError.rawValue, errorMessage: error.message, matchingAcls: [])
            })
        }
        var next = matched.makeIterator()
        return DeleteAclsResponse(filterResults: results.map { result in
            if let result { return result }
            let bindings = next.next() ?? []
            return .init(matchingAcls: bindings.map { binding in
                .init(
                    resourceType: binding.resourceType.rawValue, resourceName: binding.resourceName, patternType: binding.patternType.rawValue,
                    principal: binding.principal, host: binding.host, operation: binding.operation.rawValue,
                    permissionType: binding.permission.rawValue)
            })
        })
    }

    /// The binding a creation asks for, if the broker can keep it.
    private static func binding(of creation: CreateAclsRequest.Creation) -> Result<ACLBinding, ACLValidationError> {
        guard let resourceType = ACLResourceType(rawValue: creation.resourceType),
              let patternType = ACLPatternType(rawValue: creation.patternType),
              let operation = ACLOperation(rawValue: creation.operation),
              let permission = ACLPermission(rawValue: creation.permissionType)
        else { return .failure(ACLValidationError("Unknown resource type, pattern type, operation or permission type")) }
        return ACLBinding.validated(ACLBinding(
            resourceType: resourceType, resourceName: creation.resourceName, patternType: patternType, principal: creation.principal,
            host: creation.host, operation: operation, permission: permission))
    }

    /// The filter a request carries; codes Kafka does not define, or UNKNOWN, are refused.
    private static func filter(of wire: AclBindingFilter) -> Result<ACLFilter, ACLValidationError> {
        guard let resourceType = ACLResourceType(rawValue: wire.resourceType),
              let patternType = ACLPatternType(rawValue: wire.patternType),
              let operation = ACLOperation(rawValue: wire.operation),
              let permission = ACLPermission(rawValue: wire.permissionType)
        else { return .failure(ACLValidationError("Unknown resource type, pattern type, operation or permission type")) }
        let filter = ACLFilter(
            resourceType: resourceType, resourceName: wire.resourceName, patternType: patternType, principal: wire.principal, host: wire.host,
            operation: operation, permission: permission)
        guard !filter.isUnknown else {
            return .failure(ACLValidationError("The resource type, pattern type, operation or permission type is UNKNOWN"))
        }
        return .success(filter)
    }
}
