import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct KafkaAPITests {
    @Test func tableHoldsTheKeysAndRangesTheBrokerAdvertises() {
        #expect(KafkaAPI.allCases.map(\.key) == [0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 24, 25, 26, 28, 29, 30, 31, 32, 33, 36, 37, 44])
        #expect(KafkaAPI.produce.supportedVersions == 3 ... 9)
        #expect(KafkaAPI.fetch.supportedVersions == 4 ... 12)
        #expect(KafkaAPI.metadata.supportedVersions == 0 ... 12)
        #expect(KafkaAPI.apiVersions.name == "ApiVersions")
        #expect(KafkaAPI.initProducerID.name == "InitProducerId")
        #expect(KafkaAPI.addPartitionsToTxn.supportedVersions == 0 ... 3)
        #expect(KafkaAPI.endTxn.name == "EndTxn")
        #expect(KafkaAPI.txnOffsetCommit.name == "TxnOffsetCommit")
        #expect(KafkaAPI.incrementalAlterConfigs.supportedVersions == 0 ... 1)
        let response = ApiVersionsResponse.advertisingSupportedAPIs()
        #expect(response.apiKeys.count == KafkaAPI.allCases.count)
        #expect(response.apiKeys.first { $0.apiKey == 1 } == .init(apiKey: 1, minVersion: 4, maxVersion: 12))
    }

    @Test func headerVersionsFollowFlexibility() {
        // Request headers: v2 for flexible versions, else v1.
        #expect(KafkaAPI.metadata.requestHeaderVersion(for: 8) == 1)
        #expect(KafkaAPI.metadata.requestHeaderVersion(for: 9) == 2)
        #expect(KafkaAPI.produce.requestHeaderVersion(for: 9) == 2)
        #expect(KafkaAPI.apiVersions.requestHeaderVersion(for: 3) == 2)
        #expect(KafkaAPI.apiVersions.requestHeaderVersion(for: 2) == 1)
        // Response headers: v1 for flexible versions, else v0; ApiVersions always v0.
        #expect(KafkaAPI.fetch.responseHeaderVersion(for: 11) == 0)
        #expect(KafkaAPI.fetch.responseHeaderVersion(for: 12) == 1)
        #expect(KafkaAPI.apiVersions.responseHeaderVersion(for: 3) == 0)
        #expect(KafkaAPI.apiVersions.responseHeaderVersion(for: 4) == 0)
        #expect(KafkaAPI.initProducerID.responseHeaderVersion(for: 2) == 1)
        // The transaction APIs turn flexible at 3, AlterConfigs at 2, IncrementalAlterConfigs at 1.
        #expect(KafkaAPI.addPartitionsToTxn.requestHeaderVersion(for: 2) == 1)
        #expect(KafkaAPI.addPartitionsToTxn.requestHeaderVersion(for: 3) == 2)
        #expect(KafkaAPI.endTxn.responseHeaderVersion(for: 2) == 0)
        #expect(KafkaAPI.endTxn.responseHeaderVersion(for: 3) == 1)
        #expect(KafkaAPI.alterConfigs.requestHeaderVersion(for: 1) == 1)
        #expect(KafkaAPI.alterConfigs.requestHeaderVersion(for: 2) == 2)
        #expect(KafkaAPI.incrementalAlterConfigs.responseHeaderVersion(for: 0) == 0)
        #expect(KafkaAPI.incrementalAlterConfigs.responseHeaderVersion(for: 1) == 1)
    }

    @Test func requestHeadersRoundTripInBothVersions() throws {
        for header in [
            KafkaRequestHeader(api: .metadata, apiVersion: 1, correlationID: 3, clientID: "c"),
            KafkaRequestHeader(api: .metadata, apiVersion: 12, correlationID: -4, clientID: nil),
            KafkaRequestHeader(apiKey: 999, apiVersion: 0, correlationID: 5, clientID: "unknown api"),
        ] {
            var buffer = ByteBuffer()
            header.write(to: &buffer)
            #expect(try KafkaRequestHeader(from: &buffer) == header)
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test func headerOfAnUnsupportedApiVersionsVersionIsStillRead() throws {
        // A future client asks ApiVersions v7: flexible, so header v2; the broker must read the
        // header to answer UNSUPPORTED_VERSION with a v0 response.
        var buffer = ByteBuffer()
        let header = KafkaRequestHeader(api: .apiVersions, apiVersion: 7, correlationID: 1, clientID: "future")
        header.write(to: &buffer)
        buffer.writeBytes([0x01, 0x02])  // a body Sluice cannot read
        #expect(try KafkaRequestHeader(from: &buffer) == header)
        #expect(buffer.readableBytes == 2)
        #expect(KafkaAPI.apiVersions.supports(7) == false)
        #expect(throws: KafkaDecodingError.unsupportedVersion(apiKey: 18, version: 7)) {
            try ApiVersionsRequest(from: &buffer, version: 7)
        }
    }

    @Test func headerWithACompactLookingClientIDStaysInt16Prefixed() throws {
        // Header v2 keeps the INT16 client id length.
        var buffer = ByteBuffer()
        KafkaRequestHeader(api: .produce, apiVersion: 9, correlationID: 2, clientID: "ab").write(to: &buffer)
        #expect(Array(buffer.readableBytesView) == [0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x02, 0x00, 0x02, 0x61, 0x62, 0x00])
    }
}
