import NIOCore

/// ApiVersions response (key 18): the broker's supported version range per API. Always sent
/// with response header v0. The tagged feature fields of v3+ (KIP-584) are skipped when read and
/// not written.
package struct ApiVersionsResponse: KafkaResponse {
    package static let api = KafkaAPI.apiVersions

    /// One API's supported versions.
    package struct APIVersionRange: Sendable, Equatable {
        /// The API key.
        package var apiKey: Int16
        /// The lowest supported version, inclusive.
        package var minVersion: Int16
        /// The highest supported version, inclusive.
        package var maxVersion: Int16

        package init(apiKey: Int16, minVersion: Int16, maxVersion: Int16) {
            self.apiKey = apiKey
            self.minVersion = minVersion
            self.maxVersion = maxVersion
        }

        /// The range Sluice supports for `api`.
        package init(_ api: KafkaAPI) {
            self.init(apiKey: api.key, minVersion: api.minimumVersion, maxVersion: api.maximumVersion)
        }
    }

    /// The top-level error code: 0, or UNSUPPORTED_VERSION (35) with the table still filled in.
    package var errorCode: Int16
    /// The APIs the broker supports.
    package var apiKeys: [APIVersionRange]
    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32

    package init(errorCode: Int16 = 0, apiKeys: [APIVersionRange], throttleTimeMs: Int32 = 0) {
        self.errorCode = errorCode
        self.apiKeys = apiKeys
        self.throttleTimeMs = throttleTimeMs
    }

    /// The response that advertises every API in the `KafkaAPI` table.
    package static func advertisingSupportedAPIs(errorCode: Int16 = 0) -> ApiVersionsResponse {
        ApiVersionsResponse(errorCode: errorCode, apiKeys: KafkaAPI.allCases.map(APIVersionRange.init))
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        errorCode = try buffer.readKafkaInteger()
        apiKeys = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let range = APIVersionRange(
                apiKey: try buffer.readKafkaInteger(),
                minVersion: try buffer.readKafkaInteger(),
                maxVersion: try buffer.readKafkaInteger()
            )
            if compact { try buffer.skipKafkaTaggedFields() }
            return range
        }
        throttleTimeMs = try version >= 1 ? buffer.readKafkaInteger() : 0
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(errorCode)
        buffer.writeKafkaArray(apiKeys, compact: compact) { range, buffer in
            buffer.writeInteger(range.apiKey)
            buffer.writeInteger(range.minVersion)
            buffer.writeInteger(range.maxVersion)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
