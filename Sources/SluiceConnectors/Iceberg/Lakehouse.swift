import SluiceCore
import SluiceLakehouse

/// What Iceberg sinks and sources share in one server: the built-in REST catalog's store (nil
/// when the server runs without it), and the S3 settings of its warehouse root.
package final class Lakehouse: Sendable {
    package let store: IcebergCatalogStore?
    /// The server's S3 settings (`--s3-*` and the AWS environment), for tables on S3 that a sink
    /// gives no `s3.*` options for.
    package let s3: S3Config?

    package init(store: IcebergCatalogStore?, s3: S3Config?) {
        self.store = store
        self.s3 = s3
    }

    /// A server with neither: sinks must name a catalog by `catalog.uri`.
    package static let none = Lakehouse(store: nil, s3: nil)
}
