import SluiceCommandLine
import SluiceServer

/// `sluice serve`'s options for the built-in Iceberg REST catalog and its warehouse.
struct LakehouseOptions: ParsableArguments {
    @Option(help: "Address for the built-in Iceberg REST catalog (as Polaris serves it, also under /api/catalog).")
    var catalogListen = "127.0.0.1:8181"

    @Flag(help: "Run without the built-in Iceberg REST catalog.")
    var noCatalog = false

    @Option(help: ArgumentHelp(
        "A principal the catalog issues OAuth2 tokens to, as client_id:client_secret (repeatable; default root:secret).",
        valueName: "id:secret"))
    var catalogCredential: [String] = []

    @Flag(help: "Refuse warehouses a client names that do not exist yet, instead of creating them.")
    var catalogNoAutoCreate = false

    @Option(help: ArgumentHelp(
        "Where warehouses live: file:///path or s3://bucket/prefix (default: <data-dir>/warehouse).",
        discussion: "With s3://, credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN."))
    var warehouseRoot: String?

    @Option(help: "S3 endpoint for s3:// warehouses, such as http://127.0.0.1:9000 (default: AWS's, or AWS_ENDPOINT_URL).")
    var s3Endpoint: String?

    @Option(help: "S3 region (default: AWS_REGION, or us-east-1).")
    var s3Region: String?

    @Flag(inversion: .prefixedNo, help: "Address buckets by path (http://endpoint/bucket/key) rather than by host; the default with --s3-endpoint.")
    var s3PathStyle: Bool?

    func apply(to configuration: inout ServerConfiguration) throws {
        guard !noCatalog else {
            configuration.catalog = nil
            return
        }
        var catalog = CatalogConfiguration()
        (catalog.host, catalog.port) = try parseAddress(catalogListen)
        if !catalogCredential.isEmpty {
            catalog.principals = try catalogCredential.map { text in
                let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw ValidationError("--catalog-credential must be id:secret, not \"\(text)\"")
                }
                return (parts[0], parts[1])
            }
        }
        catalog.autoCreateWarehouses = !catalogNoAutoCreate
        if let warehouseRoot {
            guard warehouseRoot.hasPrefix("file://") || warehouseRoot.hasPrefix("s3://") || warehouseRoot.hasPrefix("/") else {
                throw ValidationError("--warehouse-root must be file:///path, /path or s3://bucket/prefix, not \"\(warehouseRoot)\"")
            }
            catalog.warehouseRoot = warehouseRoot
        }
        catalog.s3Endpoint = s3Endpoint
        catalog.s3Region = s3Region
        catalog.s3PathStyle = s3PathStyle
        configuration.catalog = catalog
    }
}
