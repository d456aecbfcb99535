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
