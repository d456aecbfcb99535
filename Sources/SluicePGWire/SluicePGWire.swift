// SluicePGWire: a Postgres frontend/backend protocol 3.0 server over SwiftNIO.
//
// It knows no SQL: the database plugs in through `PGBackend` (one per server) and `PGSession`
// (one per connection). Layers, from the bytes up (conventions §2):
//
//   Messages/      one file per message or small family; `PGFrontendMessageDecoder` frames the
//                  stream and bounds every length; `PGBackendMessage.encode(into:)` writes replies.
//   Authentication/ the methods per address class (`PGAuthentication`); users, verifiers and the
//                  SCRAM-SHA-256 exchange itself come from SluiceAuth, shared with the Kafka broker.
//   Connection/    `ConnectionStateMachine` (no I/O: events in, `ConnectionAction` out) and
//                  `PGConnectionHandler`, which performs the actions and runs backend calls off
//                  the event loop, one at a time per connection.
//   Server/        `PGServer` (bootstrap, shutdown) and `PGConnectionRegistry` (cancel keys).
//   Fuzz/          `PGWireFuzz.run(_:)` for fuzz drivers.
//
// Spec: PostgreSQL documentation, chapter "Frontend/Backend Protocol" ("Message Flow",
// "Message Formats", "Error and Notice Message Fields", "SASL Authentication").
