import NIOCore

/// A response frame as the buffers it is written from, in order, its size prefix in the first:
/// one buffer for most responses; a fetch's encoded fields with the log's records between them,
/// which go out with one vectored write instead of being copied into the frame.
struct KafkaResponseFrame {
    var pieces: [ByteBuffer]

    init(_ frame: ByteBuffer) {
        pieces = [frame]
    }

    init(pieces: [ByteBuffer]) {
        self.pieces = pieces
    }
}

extension EventLoop {
    /// A response frame ready now (nil: no response).
    func answered(_ frame: ByteBuffer?) -> EventLoopFuture<KafkaResponseFrame?> {
        makeSucceededFuture(frame.map(KafkaResponseFrame.init))
    }
}
