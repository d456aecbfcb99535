import SluiceCore

/// What Iceberg sinks and sources share in one server: the built-in REST catalog's store (nil
/// when the server runs without it), and the S3 settings of its warehouse root.
package final class Lakehouse: Sendable {
    package let store: IcebergCatalogStore?
    /// The server's S3 settings (`--s3-*` and the AWS environment), for tables on S3 that a sink
    /// gives no `s3.*` options for.
    package let s3: S3Config?
    /// The most bytes an upsert sink buffers before it writes the epoch so far as a part: a
    /// share of the server's memory limit (``bufferBytes(memoryLimit:)``).
    package let upsertBufferBytes: Int

    package init(store: IcebergCatalogStore?, s3: S3Config?, upsertBufferBytes: Int = 64 << 20) {
        self.store = store
        self.s3 = s3
        self.upsertBufferBytes = upsertBufferBytes
    }

    /// An upsert sink's buffer under `memoryLimit`: a sixteenth of it, from 1 MiB to 64 MiB.
    package static func bufferBytes(memoryLimit: Int) -> Int { min(64 << 20, max(1 << 20, memoryLimit / 16)) }

    /// A server with neither: sinks must name a catalog by `catalog.uri`.
    package static let none = Lakehouse(store: nil, s3: nil)
}
