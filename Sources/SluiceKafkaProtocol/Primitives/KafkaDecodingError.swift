/// Why bytes could not be read as a Kafka message: the input was short, lied about a length, or
/// used a version Sluice does not read. Decoders throw it and never trap, whatever the bytes.
package enum KafkaDecodingError: Error, Equatable, Sendable {
    /// The buffer ended inside a field: `needed` bytes were wanted where `remaining` were left.
    case truncated(needed: Int, remaining: Int)
    /// A length or element count that no valid message has: negative other than -1 (null), an
    /// array count larger than the bytes left could hold, or a string longer than 32,767 bytes.
    case invalidLength(Int64)
    /// A null string, bytes or array in a field that the message version declares non-nullable.
    case unexpectedNull
    /// An unsigned varint that ran past the buffer or past 5 bytes.
    case malformedVarint
    /// A message of API `apiKey` at a version outside the range `KafkaAPI` supports for it.
    case unsupportedVersion(apiKey: Int16, version: Int16)
}
