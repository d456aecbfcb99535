extension Array where Element == UInt8 {
    /// Runs `body` over the array's bytes, keeping its error's type (the standard library's
    /// `withUnsafeBytes` rethrows it as `any Error`).
    package func withRawBytes<T>(_ body: (UnsafeRawBufferPointer) throws(SluiceError) -> T) throws(SluiceError) -> T {
        let outcome: Result<T, SluiceError> = withUnsafeBytes { bytes in
            Result { () throws(SluiceError) -> T in try body(bytes) }
        }
        return try outcome.get()
    }
}
