/// HMAC-SHA-256 (RFC 2104, with SHA-256 as in RFC 4231).
package struct HMACSHA256: Sendable {
    private var inner: SHA256
    private var outer: SHA256

    /// A keyed MAC that has consumed no message yet.
    ///
    /// Keys longer than the block length are hashed first, as RFC 2104, section 2, requires.
    package init(key: some Collection<UInt8>) {
        var block = key.count > SHA256.blockLength ? SHA256.hash(key) : Array(key)
        block.append(contentsOf: repeatElement(0, count: SHA256.blockLength - block.count))
        inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
    }

    /// The MAC of `message` under `key`.
    package static func authenticationCode(for message: some Sequence<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var mac = HMACSHA256(key: key)
        mac.update(message)
        return mac.finalize()
    }

    /// Feeds more of the message.
    package mutating func update(_ bytes: some Sequence<UInt8>) {
        inner.update(bytes)
    }

    /// Returns the MAC of the message fed so far.
    ///
    /// A copy of a keyed `HMACSHA256` that has not been updated can be reused for many messages;
    /// PBKDF2 relies on this to hash the padded key only once.
    package func finalize() -> [UInt8] {
        var inner = self.inner
        var outer = self.outer
        outer.update(inner.finalize())
        return outer.finalize()
    }
}
