// The ApiVersions response Sluice's broker sends: its `KafkaAPI` table. (ApiVersionsResponse.swift
// is generated; this part is written by hand.)

extension ApiVersionsResponse.APIVersionRange {
    /// The range Sluice supports for `api`.
    package init(_ api: KafkaAPI) {
        self.init(apiKey: api.key, minVersion: api.minimumVersion, maxVersion: api.maximumVersion)
    }
}

extension ApiVersionsResponse {
    /// The response that advertises every API in the `KafkaAPI` table.
    package static func advertisingSupportedAPIs(errorCode: Int16 = 0) -> ApiVersionsResponse {
        ApiVersionsResponse(errorCode: errorCode, apiKeys: KafkaAPI.allCases.map(APIVersionRange.init))
    }
}
