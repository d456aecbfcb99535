import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct MessageRoundTripTests {
    /// Every message, at every version its API supports (the lowest, middle and highest among
    /// them): written, read back equal with no byte left over, and written again to the same bytes.
    @Test(arguments: MessageSamples.all)
    func roundTripsAtEverySupportedVersion(_ message: MessageCase) throws {
        for version in message.api.supportedVersions {
            var bytes = message.encode(version)
            let original = bytes
            let rewritten = try message.decodeAndCompare(&bytes, version)
            #expect(rewritten == original, "\(message) v\(version)")
        }
    }

    @Test(arguments: MessageSamples.all)
    func refusesVersionsOutsideTheSupportedRange(_ message: MessageCase) {
        let tooHigh = message.api.maximumVersion + 1
        var bytes = message.encode(message.api.maximumVersion)
        #expect(throws: KafkaDecodingError.unsupportedVersion(apiKey: message.api.key, version: tooHigh)) {
            _ = try message.decodeAndRewrite(&bytes, tooHigh)
        }
        var negative = message.encode(message.api.minimumVersion)
        #expect(throws: KafkaDecodingError.self) { _ = try message.decodeAndRewrite(&negative, -1) }
    }

    @Test func everyAPIHasARequestAndAResponseSample() {
        let names = Set(MessageSamples.all.map(\.name))
        #expect(names.count == MessageSamples.all.count)
        for api in KafkaAPI.allCases {
            #expect(MessageSamples.all.filter { $0.api == api }.count == 2, "\(api.name)")
        }
    }

    @Test func flexibleAndNonFlexibleVersionsDiffer() {
        // Metadata v8 (classic) and v9 (flexible) of the same request must differ in encoding.
        let request = MetadataRequest(topics: [.init(name: "orders")])
        var v8 = ByteBuffer()
        request.write(to: &v8, version: 8)
        var v9 = ByteBuffer()
        request.write(to: &v9, version: 9)
        #expect(v8 != v9)
    }
}
