import SluiceKafkaProtocol

/// AlterConfigs and IncrementalAlterConfigs: topic overrides, checked as CreateTopics checks
/// them (``TopicConfigs``), saved with the topic and applied to its partitions at once. A topic
/// needs ALTER_CONFIGS. The broker's own settings come from `sluice serve`'s command line and
/// are not altered at run time: such a request gets INVALID_REQUEST, as Kafka answers for a
/// broker config it cannot update dynamically.
extension KafkaBroker {
    /// Resource types (Kafka's `ConfigResource.Type`).
    private static let topicResource: Int8 = 2
    private static let brokerResource: Int8 = 4

    func alterConfigs(_ request: AlterConfigsRequest, version: Int16, _ context: RequestContext = .trusted) -> AlterConfigsResponse {
        AlterConfigsResponse(responses: request.resources.map { resource in
            // AlterConfigs replaces every override of the resource with the ones given.
            alter(resource.resourceType, resource.resourceName, validateOnly: request.validateOnly, context) { _ in
                var configs: [String: String] = [:]
                for config in resource.configs {
                    guard let value = config.value else {
                        return .failure(.invalidRequest, "Null value not supported for topic configs: \(config.name)")
                    }
                    configs[config.name] = value
                }
                return .success(configs)
            }
        })
    }

    func incrementalAlterConfigs(
        _ request: IncrementalAlterConfigsRequest, version: Int16, _ context: RequestContext = .trusted
    ) -> IncrementalAlterConfigsResponse {
        IncrementalAlterConfigsResponse(responses: request.resources.map { resource in
            alter(resource.resourceType, resource.resourceName, validateOnly: request.validateOnly, context) { current in
                var configs = current
                for config in resource.configs {
                    switch config.configOperation {
                    case 0:  // SET
                        guard let value = config.value else {
                            return .failure(.invalidRequest, "Null value not supported for topic configs: \(config.name)")
                        }
                        configs[config.name] = value
                    case 1:  // DELETE: back to the default.
                        configs.removeValue(forKey: config.name)
                    case 2, 3:  // APPEND, SUBTRACT: list configs only.
                        guard TopicConfigs.isList(config.name) else {
                            return .failure(.invalidConfig, "Config value append is not allowed for config key: \(config.name)")
                        }
                        let items = (configs[config.name] ?? TopicConfigs.defaultValue(config.name) ?? "")
                            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                        let given = (config.value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                        let changed = config.configOperation == 2
                            ? items + given.filter { !items.contains($0) } : items.filter { !given.contains($0) }
                        configs[config.name] = changed.joined(separator: ",")
                    default:
                        return .failure(.invalidRequest, "Unknown config operation \(config.configOperation) for \(config.name)")
                    }
                }
                return .success(configs)
            }
        })
    }

    private enum Altered {
        case success([String: String])
        case failure(KafkaErrorCode, String)
    }

    /// Checks and applies the overrides `change` makes of a resource's current ones.
    private func alter(
        _ type: Int8, _ name: String, validateOnly: Bool, _ context: RequestContext, _ change: ([String: String]) -> Altered
    ) -> AlterConfigsResponse.ResourceResponse {
        func failure(_ code: KafkaErrorCode, _ message: String?) -> AlterConfigsResponse.ResourceResponse {
            AlterConfigsResponse.ResourceResponse(errorCode: code.rawValue, errorMessage: message, resourceType: type, resourceName: name)
        }
        switch type {
        case Self.topicResource:
            guard isAllowed(context, .alterConfigs, topic: name) else { return failure(.topicAuthorizationFailed, "Authorization failed.") }
            guard let topic = topics.topic(name) else { return failure(.unknownTopicOrPartition, "Topic \(name) does not exist.") }
            switch change(topic.configs) {
            case .failure(let code, let message):
                return failure(code, message)
            case .success(let configs):
                for (key, value) in configs.sorted(by: { $0.key < $1.key }) {
                    if let problem = TopicConfigs.problem(name: key, value: value) { return failure(.invalidConfig, problem) }
                }
                if validateOnly { return failure(.noError, nil) }
                do {
                    try topics.setConfigs(name, configs)
                    return failure(.noError, nil)
                } catch {
                    return failure(error.code, "\(error)")
                }
            }
        case Self.brokerResource:
            return failure(
                .invalidRequest, "The broker's configs are set by sluice serve's options and cannot be updated dynamically.")
        default:
            return failure(.invalidRequest, "Unsupported resource type \(type)")
        }
    }
}
