/// Closes an epoch: every change before it belongs to `epoch` or earlier.
package struct Barrier: Sendable, Equatable {
    package var epoch: UInt64
    /// True when the state of this epoch is to be written durably.
    package var isCheckpoint: Bool
    /// When the barrier was injected, in microseconds since 1970-01-01 UTC: `now()` for the
    /// epoch it closes (temporal filters). Never less than an earlier barrier's.
    package var timestamp: Int64

    package init(epoch: UInt64, isCheckpoint: Bool = true, timestamp: Int64 = 0) {
        self.epoch = epoch
        self.isCheckpoint = isCheckpoint
        self.timestamp = timestamp
    }
}

/// Event-time progress: no later row will have column `column` below `value`.
package struct Watermark: Sendable, Equatable {
    package var column: Int
    package var value: Value

    package init(column: Int, value: Value) {
        self.column = column
        self.value = value
    }
}

/// Everything that flows between stream operators.
package enum StreamMessage: Sendable {
    case chunk(StreamChunk)
    case barrier(Barrier)
    case watermark(Watermark)
}
