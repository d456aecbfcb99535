extension Array where Element == UInt8 {
    /// Runs `body` over the array's bytes, keeping its error's type (the standard library's
    /// `withUnsafeBytes` rethrows it as `any Error`).
    package func withRawBytes<T>(_ body: (UnsafeRawBufferPointer) throws(SluiceError) -> T) throws(SluiceError) -> T {
        let outcome: Result<T, SluiceError> = withUnsafeBytes { bytes in
            Result { () throws(SluiceError) -> T in try body(bytes) }
        }
        return try outcome.get()
    }

    /// Appends `bytes` with one copy. (Appending a slice of a raw buffer goes through the
    /// generic, element-by-element path.)
    @inline(__always)
    package mutating func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }
}
