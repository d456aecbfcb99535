/// Closes an epoch: every change before it belongs to `epoch` or earlier.
package struct Barrier: Sendable, Equatable {
    package var epoch: UInt64
    /// True when the state of this epoch is to be written durably.
    package var isCheckpoint: Bool

    package init(epoch: UInt64, isCheckpoint: Bool = true) {
        self.epoch = epoch
        self.isCheckpoint = isCheckpoint
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
