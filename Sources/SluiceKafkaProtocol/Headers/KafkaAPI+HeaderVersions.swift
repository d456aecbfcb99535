// Kafka's RequestHeader and ResponseHeader definitions, and KIP-482: flexible versions of an API
// use the flexible header versions, except that ApiVersions responses keep header v0 so that a
// client which does not yet know the broker's versions can always read them.
extension KafkaAPI {
    /// The request header version for this API at `version`: 2 (with tagged fields) when the
    /// version is flexible, else 1. Defined for versions outside the supported range too, so a
    /// header can be read before the version is checked.
    package func requestHeaderVersion(for version: Int16) -> Int16 {
        isFlexible(version) ? 2 : 1
    }

    /// The response header version for this API at `version`: 1 (with tagged fields) when the
    /// version is flexible, else 0; always 0 for ApiVersions.
    package func responseHeaderVersion(for version: Int16) -> Int16 {
        if self == .apiVersions { return 0 }
        return isFlexible(version) ? 1 : 0
    }
}
