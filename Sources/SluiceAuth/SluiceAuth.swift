// SluiceAuth: who a client is, for every endpoint that asks (the Postgres wire server and the
// Kafka broker), with no network code and no protocol framing of its own.
//
//   SHA256, HMAC, PBKDF2    the primitives SCRAM-SHA-256 needs (FIPS 180-4, RFC 2104, RFC 8018).
//   SCRAMVerifier           what is stored per user: salt, iterations, StoredKey, ServerKey.
//   SCRAMServerExchange     the server side of one SCRAM-SHA-256 exchange (RFC 5802, RFC 7677),
//                           for a user given up front (Postgres) or named in the exchange (Kafka).
//   UserDirectory           who may log in (`UserLogin`): the catalog's roles in the server.
//
// Each protocol frames the SCRAM messages its own way (Postgres's SASLInitialResponse and
// SASLResponse, Kafka's SaslAuthenticate) and lives with its server.
