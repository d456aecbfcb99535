// Kafka's wire messages (spec: the Kafka protocol guide, and one JSON definition per request and
// response in apache/kafka clients/src/main/resources/common/message/; flexible versions: KIP-482).
//
//   Primitives/  ByteBuffer readers that throw `KafkaDecodingError` and never trap, and writers.
//   Headers/     request header v1/v2, response header v0/v1, and which version an API uses.
//   Messages/    `KafkaAPI` (the supported-version table), one file per request and response,
//                `KafkaRequestBody` (a request of any API, read according to its header) and
//                the size-prefixed frames.
//
// Message types carry the names of Kafka's definitions (`ApiVersionsRequest`,
// `InitProducerIdResponse`) so that each can be found in the spec by name; their properties follow
// Swift's naming (`correlationID`, `producerID`). Error codes stay raw `Int16`, records stay bytes:
// the record-batch layer beside this one owns both.

import NIOCore

/// A Kafka request or response body, read and written at any version its API supports.
///
/// Fields that a version lacks are left at their defaults when reading (the `default` of Kafka's
/// message definition) and are not written. A nil in a field that is nullable only from some
/// version on is written as empty (string or array) in earlier versions.
package protocol KafkaMessage: Sendable, Equatable {
    /// The API this message belongs to.
    static var api: KafkaAPI { get }

    /// Reads the body at `version`; throws `unsupportedVersion` outside `api.supportedVersions`
    /// and never traps on malformed input.
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError)

    /// Writes the body at `version`, which must be in `api.supportedVersions`.
    func write(to buffer: inout ByteBuffer, version: Int16)
}

/// A request body, with the type of the response that answers it.
package protocol KafkaRequest: KafkaMessage {
    associatedtype Response: KafkaResponse
}

/// A response body.
package protocol KafkaResponse: KafkaMessage {}
