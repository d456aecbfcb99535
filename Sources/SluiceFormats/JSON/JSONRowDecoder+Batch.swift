import SluiceCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One message that did not become a row.
package struct JSONMessageError: Hashable, Sendable {
    /// The message's index among those given to the batch call.
    package var index: Int
    /// For NDJSON input, the byte offset of the message's line in the buffer; else 0.
    package var byteOffset: Int
    package var error: JSONDecodeError

    package init(index: Int, byteOffset: Int, error: JSONDecodeError) {
        self.index = index
        self.byteOffset = byteOffset
        self.error = error
    }
}

/// The rows of a batch of messages and the messages that failed; a failure never stops the
/// batch.
package struct JSONDecodedBatch: Sendable {
    package var chunk: Chunk
    package var errors: [JSONMessageError]
    /// How many messages were read (rows plus errors; blank NDJSON lines are not messages).
    package var messageCount: Int
}

extension JSONRowDecoder {
    /// Decodes messages `0 ..< count` (the bytes of message `i` are `message(i)`, valid during
    /// the call) into one chunk, collecting the failures.
    ///
    /// - Complexity: O(total bytes).
    package mutating func decodeBatch(count: Int, message: (Int) -> UnsafeRawBufferPointer) -> JSONDecodedBatch {
        var builders = makeBuilders(capacity: count)
        var errors: [JSONMessageError] = []
        builders.withUnsafeMutableBufferPointer { builders in
            for index in 0 ..< count {
                do throws(JSONDecodeError) {
                    try decodeRow(message(index), into: builders)
                } catch {
                    errors.append(JSONMessageError(index: index, byteOffset: 0, error: error))
                }
            }
        }
        let columns = builders.map { $0.finish() }
        return JSONDecodedBatch(chunk: Chunk(columns: columns, count: builders.first?.count ?? 0), errors: errors, messageCount: count)
    }

    /// Decodes newline-delimited JSON from `buffer`, starting at byte `offset`, until `maxRows`
    /// rows are decoded or the buffer ends. Blank lines are skipped; a final line without a
    /// newline counts. Returns the batch and the offset where the next call should start.
    ///
    /// This is the reusable decode-over-a-buffer loop (the NDJSON benchmark and file sources
    /// call it; Kafka sources call ``decodeBatch(count:message:)``).
    ///
    /// - Complexity: O(bytes consumed).
    package mutating func decodeLines(_ buffer: UnsafeRawBufferPointer, from offset: Int = 0, maxRows: Int = Chunk.preferredSize) -> (batch: JSONDecodedBatch, nextOffset: Int) {
        var builders = makeBuilders(capacity: maxRows)
        var errors: [JSONMessageError] = []
        var position = offset
        var messageIndex = 0
        var rows = 0
        // Through a pointer for the whole batch, not one uniqueness check per row.
        builders.withUnsafeMutableBufferPointer { builders in
            while rows < maxRows && position < buffer.count {
                let lineStart = position
                let lineEnd: Int
                if let newline = memchr(buffer.baseAddress! + lineStart, 0x0A, buffer.count - lineStart) {
                    lineEnd = UnsafeRawPointer(newline) - buffer.baseAddress!
                    position = lineEnd + 1
                } else {
                    lineEnd = buffer.count
                    position = buffer.count
                }
                var firstByte = lineStart
                while firstByte < lineEnd, buffer[firstByte] == 0x20 || buffer[firstByte] == 0x09 || buffer[firstByte] == 0x0D { firstByte += 1 }
                if firstByte == lineEnd { continue }  // a blank line is no message
                let line = UnsafeRawBufferPointer(rebasing: buffer[lineStart ..< lineEnd])
                do throws(JSONDecodeError) {
                    try decodeRow(line, into: builders)
                    rows += 1
                } catch {
                    errors.append(JSONMessageError(index: messageIndex, byteOffset: lineStart, error: error))
                }
                messageIndex += 1
            }
        }
        let columns = builders.map { $0.finish() }
        return (JSONDecodedBatch(chunk: Chunk(columns: columns, count: rows), errors: errors, messageCount: messageIndex), position)
    }
}
