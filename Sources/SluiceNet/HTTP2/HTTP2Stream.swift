/// One stream's state on a server connection (RFC 9113 Section 5.1): open until both sides
/// have ended it (END_STREAM each way), half-closed when one has.
struct HTTP2Stream {
    /// The client may still send on it (no END_STREAM yet): open or half-closed (local).
    var isRemoteOpen = true
    /// We may still send on it: open or half-closed (remote).
    var isLocalOpen = true
    /// The request went to the owner.
    var isHandedOver = false
    /// Its request head arrived (later HEADERS are trailers).
    var hasHead = false
    /// What we may send on it (may go below zero when the client lowers its initial window).
    var sendWindow: Int
    /// What the client may still send on it, and what it sent since we last opened the window.
    var receiveWindow: Int
    var receivedUnacknowledged = 0
    var request: HTTP2Request?
    /// `content-length`, checked against the body at its end (Section 8.1.1).
    var declaredLength: Int?
    var bodyLength = 0
    /// Body bytes dropped after the answer ended (Section 8.1: the client may go on sending).
    var discardedBytes = 0

    init(sendWindow: Int, receiveWindow: Int) {
        self.sendWindow = sendWindow
        self.receiveWindow = receiveWindow
    }
}
