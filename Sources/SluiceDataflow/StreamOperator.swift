import SluiceCore
import SluiceState

/// Which input of an operator a chunk came from (joins and unions have several).
package typealias InputIndex = Int

/// Where an operator puts its output chunks.
package struct OutputBuffer {
    package private(set) var chunks: [StreamChunk] = []
    /// Rows that failed in an expression and became NULL (RisingWave's behaviour: the view keeps
    /// running), and the last such error.
    package private(set) var warningCount = 0
    package private(set) var lastWarning: SluiceError?

    package init() {}

    /// Counts a row-level error that did not stop the operator.
    package mutating func warn(_ error: SluiceError) {
        warningCount += 1
        lastWarning = error
    }

    package mutating func append(_ chunk: StreamChunk) {
        if !chunk.data.isEmpty { chunks.append(chunk) }
    }

    /// Takes the buffered chunks, leaving the buffer empty.
    package mutating func drain() -> [StreamChunk] {
        defer { chunks = [] }
        return chunks
    }
}

/// Collects the state changes of an epoch from every operator, for the checkpoint.
package struct StateWriter {
    package private(set) var deltas: [StateDelta] = []

    package init() {}

    package mutating func record(_ delta: StateDelta) {
        deltas.append(delta)
    }
}

/// A stream operator: turns input change chunks into output change chunks, one epoch at a time.
///
/// Synchronous and owned by one worker thread; no `async` and no actor hop per chunk.
package protocol StreamOperator {
    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError)
    /// Ends the epoch: writes state changes and emits what the epoch completes. Default: nothing.
    mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError)
    /// Reacts to event-time progress. Default: nothing (the runtime passes the watermark on).
    mutating func advance(to watermark: Watermark, into output: inout OutputBuffer) throws(SluiceError)
    /// Bytes of memory the operator's state holds, estimated from what it stores (for system
    /// views and benchmarks). Default: 0, for stateless operators.
    var stateBytes: Int { get }
}

extension StreamOperator {
    package mutating func finishEpoch(_ barrier: Barrier, state: inout StateWriter, into output: inout OutputBuffer) throws(SluiceError) {}
    package mutating func advance(to watermark: Watermark, into output: inout OutputBuffer) throws(SluiceError) {}
    package var stateBytes: Int { 0 }
}
