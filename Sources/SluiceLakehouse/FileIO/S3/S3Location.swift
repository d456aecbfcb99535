import SluiceCore

/// An `s3://bucket/key` (or `s3a://`) location split into its parts.
package struct S3Location: Sendable, Hashable, CustomStringConvertible {
    /// `s3` or `s3a`, kept so listings answer in the caller's spelling.
    package var scheme: String
    package var bucket: String
    /// The object key; empty for the bucket itself or a listing of all of it.
    package var key: String

    package init(scheme: String = "s3", bucket: String, key: String) {
        self.scheme = scheme
        self.bucket = bucket
        self.key = key
    }

    /// Parses `s3://bucket/key`, `s3://bucket/` and `s3://bucket`; anything else, or an empty
    /// bucket, is a `22023` error naming the location.
    package init(parsing location: String) throws(SluiceError) {
        let scheme: String
        if location.hasPrefix("s3://") { scheme = "s3" } else if location.hasPrefix("s3a://") { scheme = "s3a" } else {
            throw SluiceError(.invalidParameterValue, "\"\(location)\" is not an s3:// location")
        }
        let rest = location.dropFirst(scheme.count + 3)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { throw SluiceError(.invalidParameterValue, "S3 location \"\(location)\" names no bucket") }
        self.init(scheme: scheme, bucket: String(bucket), key: String(rest.dropFirst(bucket.count + 1)))
    }

    /// The location of another key in the same bucket, in the same spelling.
    package func with(key: String) -> S3Location {
        S3Location(scheme: scheme, bucket: bucket, key: key)
    }

    package var description: String { "\(scheme)://\(bucket)/\(key)" }
}
