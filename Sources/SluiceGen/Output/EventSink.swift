/// Where generated events go: an NDJSON file, standard output, a Kafka topic.
///
/// The bytes passed are valid only during the call; a sink that keeps them copies them.
package protocol EventSink {
    /// Takes one event: its key (nil when it has none) and its JSON value.
    mutating func send(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer) throws
    /// Passes on what is buffered (a paced run calls it before it sleeps).
    mutating func flush() throws
    /// Flushes and closes; no event follows.
    mutating func finish() throws
}

/// Writes each event's value as one line (NDJSON), buffering lines and handing them to `write`
/// in blocks of about `blockSize` bytes. Keys are not written.
package struct NDJSONSink: EventSink {
    private let buffer: ByteWriter
    private let blockSize: Int
    private let write: (UnsafeRawBufferPointer) throws -> Void
    /// Bytes handed to `write` so far.
    package private(set) var bytesWritten = 0

    package init(blockSize: Int = 1 << 16, write: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.blockSize = blockSize
        self.write = write
        buffer = ByteWriter(capacity: blockSize + 4096)
    }

    package mutating func send(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer) throws {
        buffer.append(value)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= blockSize { try flush() }
    }

    package mutating func flush() throws {
        guard buffer.count > 0 else { return }
        try write(buffer.bytes)
        bytesWritten += buffer.count
        buffer.removeAll()
    }

    package mutating func finish() throws {
        try flush()
    }
}
