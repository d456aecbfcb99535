import NIOCore

/// What the broker knows of one client connection: the listener it came in on, the client's
/// address, and where its SASL authentication stands (and so whom its requests run as).
///
/// Not `Sendable`: it lives on the connection's event loop, read and changed only there, by the
/// connection's handler and by the broker while it answers one of the connection's requests.
final class KafkaConnection {
    /// The index of the listener in the configuration's `listeners`.
    let listenerIndex: Int
    /// The client's address as group members report it (`/127.0.0.1`).
    let clientHost: String
    var sasl: SASLStateMachine
    /// Set when the answer being prepared is the connection's last: the handler closes the
    /// connection once it is written (or at once when there is none).
    var closesAfterResponse = false

    init(listenerIndex: Int, clientHost: String, sasl: SASLStateMachine) {
        self.listenerIndex = listenerIndex
        self.clientHost = clientHost
        self.sasl = sasl
    }
}
