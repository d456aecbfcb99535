import NIOCore
import SluiceCore

/// The body of one frontend message, read field by field with bounds checks.
///
/// Every read fails with 08P01 instead of trapping when the body is too short, so a malformed
/// message can never crash the server or make it allocate more than the bytes that arrived.
package struct PGMessageBody {
    private var buffer: ByteBuffer
    /// The message type, for error messages ("Parse", "Bind", …).
    private let messageName: String

    package init(_ buffer: ByteBuffer, messageName: String) {
        self.buffer = buffer
        self.messageName = messageName
    }

    /// The bytes not read yet.
    package var remainingCount: Int { buffer.readableBytes }

    /// Reads a big-endian Int16.
    package mutating func readInt16() throws(SluiceError) -> Int16 {
        guard let value = buffer.readInteger(as: Int16.self) else { throw truncated() }
        return value
    }

    /// Reads a big-endian Int32.
    package mutating func readInt32() throws(SluiceError) -> Int32 {
        guard let value = buffer.readInteger(as: Int32.self) else { throw truncated() }
        return value
    }

    /// Reads a NUL-terminated UTF-8 string.
    package mutating func readCString() throws(SluiceError) -> String {
        guard let nulIndex = buffer.readableBytesView.firstIndex(of: 0) else {
            throw invalid("missing string terminator")
        }
        let length = nulIndex - buffer.readerIndex
        let bytes = buffer.readBytes(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        return try Self.validatedString(bytes)
    }

    /// Reads exactly `count` bytes; `count` is checked against what arrived before anything is allocated.
    package mutating func readBytes(_ count: Int) throws(SluiceError) -> [UInt8] {
        guard count >= 0, count <= buffer.readableBytes, let bytes = buffer.readBytes(length: count) else {
            throw truncated()
        }
        return bytes
    }

    /// Reads all remaining bytes.
    package mutating func readRest() -> [UInt8] {
        buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// Reads an Int16 count that must not be negative.
    package mutating func readCount() throws(SluiceError) -> Int {
        let count = try readInt16()
        guard count >= 0 else { throw invalid("negative count \(count)") }
        return Int(count)
    }

    /// Checks that the whole body was read (Postgres `pq_getmsgend`).
    package func finish() throws(SluiceError) {
        guard buffer.readableBytes == 0 else { throw invalid("\(buffer.readableBytes) unexpected bytes at the end") }
    }

    /// A protocol-violation error about this message.
    package func invalid(_ detail: String) -> SluiceError {
        SluiceError(.protocolViolation, "invalid \(messageName) message format", detail: detail.prefix(1).uppercased() + detail.dropFirst() + ".")
    }

    private func truncated() -> SluiceError { invalid("the message ends inside a field") }

    /// Decodes `bytes` as UTF-8, the only client encoding Sluice accepts.
    package static func validatedString(_ bytes: [UInt8]) throws(SluiceError) -> String {
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw SluiceError(.characterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
        }
        return string
    }
}

extension ByteBuffer {
    /// Writes a NUL-terminated string.
    package mutating func writeCString(_ string: String) {
        writeString(string)
        writeInteger(UInt8(0))
    }

    /// Writes one backend message: the type byte, then the Int32 length (counting itself), then the body.
    package mutating func writePGMessage(_ type: UInt8, body: (inout ByteBuffer) -> Void) {
        writeInteger(type)
        let lengthIndex = writerIndex
        writeInteger(Int32(0))
        body(&self)
        setInteger(Int32(writerIndex - lengthIndex), at: lengthIndex)
    }
}
