// swift-tools-version: 6.1
import PackageDescription

// Layers (docs/architecture.md; tests/lint/test_layers.py checks every import): imports point only down.
// L0 SluiceCore; SluiceCommandLine (the command-line parser, depending on nothing); SluiceCodecs (over the C system libraries CZlib, CSnappy, CLZ4, CZstd and CCRC32C)
// L1 SluiceCrypto (CLibCrypto), SluiceNet (CLibSSL), SluiceSQL, SluiceExpr, SluiceFormats, SluiceState,
//    SluiceKafkaProtocol, SluiceKafkaClient (CRdKafka), SluicePostgresClient (CLibPQ), SluiceGen
// L2 SluiceAuth, SluicePlan, SluiceBroker, SluicePGWire, SluiceLakehouse · L3 SluicePlanner, SluiceBatch, SluiceDataflow,
//    SluiceLakehouseClients, SluiceHTTP
// L4 SluiceConnectors, SluiceServer (given the connectors by what starts it; SluiceKafkaClient for the ksqlDB door's push queries) · L5 SluiceBench, SluiceCLI · L6 sluice
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
// (NIO's own HTTP/1.1 server: an independent peer for the HTTP client's tests, not built for sluice.)
let nioHTTP1 = Target.Dependency.product(name: "NIOHTTP1", package: "swift-nio")
// The columnar data path is optimized in debug builds too: the tests run the debug binary over
// tens of millions of rows, which unoptimized generic code takes ten times as long over.
let optimized: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // HTTP servers: the dashboard, the Iceberg REST catalog, the schema registry. (The S3 and
        // catalog clients and TLS are our own, over NIO and the system's OpenSSL: SluiceNet.)
        // (Without its default traits: swift-configuration support, which Sluice does not use, is
        // not built.)
    ],
    targets: [
        .target(name: "SluiceCore", swiftSettings: optimized),
        // The command line's options, flags, arguments, subcommands and help, for `sluice`. Run
        // once per process, it is compiled unoptimized in release builds too (1 s instead of 4).
        .target(name: "SluiceCommandLine", swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .release))]),
        // Users, SCRAM verifiers and the SCRAM exchange, shared by the SQL port and the Kafka broker.
        .target(name: "SluiceAuth", dependencies: ["SluiceCore", "SluiceCrypto", nioCore]),
        // The compression libraries (Debian's -dev packages; tests/install-system-deps.sh installs
        // them before any build), linked dynamically.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSnappy", pkgConfig: "snappy", providers: [.apt(["libsnappy-dev"])]),
        .systemLibrary(name: "CLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        // The processor's CRC-32C instruction, which Swift cannot reach without C.
        .target(name: "CCRC32C"),
        .target(name: "SluiceCodecs", dependencies: ["CZlib", "CSnappy", "CLZ4", "CZstd", "CCRC32C"]),
        // The system's OpenSSL libcrypto (Debian: libssl-dev): SHA-256 and HMAC for S3's
        // Signature Version 4 and the catalog's tokens, AES-GCM for the catalog's sealed secrets.
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "SluiceCrypto", dependencies: ["SluiceCore", "CLibCrypto"]),
        // The system's OpenSSL libssl: TLS on every port, and https for the HTTP client
        // (S3, Iceberg REST catalogs, schema registries) over NIO.
        .systemLibrary(name: "CLibSSL", path: "Sources/CLibSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "SluiceNet", dependencies: ["SluiceCore", "CLibSSL", nioCore, nioPosix]),
        .systemLibrary(name: "CRdKafka", path: "Sources/CRdKafka", providers: [.apt(["librdkafka-dev"])]),
        .target(name: "SluiceKafkaClient", dependencies: ["SluiceCore", "CRdKafka"]),
        // PostgreSQL's client library's header (Debian: libpq-dev) for the Postgres sinks and CDC
        // source; the library itself is loaded when the first connection is made (LibPQ.swift).
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "SluicePostgresClient", dependencies: ["SluiceCore", "CLibPQ"]),
        .target(name: "SluiceKafkaProtocol", dependencies: ["SluiceCore", "SluiceCodecs", nioCore]),
        .target(name: "SluiceBroker", dependencies: ["SluiceCore", "SluiceAuth", "SluiceCodecs", "SluiceKafkaProtocol", nioCore, nioPosix]),
        .target(name: "SluiceSQL", dependencies: ["SluiceCore"]),
        .target(name: "SluiceFormats", dependencies: ["SluiceCore", "SluiceCodecs", "CZlib"]),
        .target(name: "SluiceExpr", dependencies: ["SluiceCore"], swiftSettings: optimized),
        .target(name: "SluicePlan", dependencies: ["SluiceCore", "SluiceExpr"]),
        .target(name: "SluiceState", dependencies: ["SluiceCore", "SluiceCodecs"]),
        // (Its system tables are listed at build time from the files under System/Tables/.)
        .target(
            name: "SluicePlanner", dependencies: ["SluiceCore", "SluiceExpr", "SluiceSQL", "SluicePlan"],
            plugins: [.plugin(name: "SystemTablesPlugin")]),
        .plugin(name: "SystemTablesPlugin", capability: .buildTool()),
        .target(name: "SluiceBatch", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"], swiftSettings: optimized),
        .target(name: "SluiceDataflow", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"]),
        // Iceberg: table metadata, manifests, scans, maintenance, the REST catalog's store and
        // handler, and the file IO of warehouses on local disk (S3's signing and answers too).
        // Nothing of the network: it compiles beside SwiftNIO's event loops.
        .target(
            name: "SluiceLakehouse",
            dependencies: ["SluiceCore", "SluiceCodecs", "SluiceCrypto", "SluiceFormats"]),
        // The lakehouse's clients over SluiceNet's HTTP client: S3 (a warehouse's FileIO) and
        // remote Iceberg REST catalogs, and blocking requests for schema registries.
        .target(name: "SluiceLakehouseClients", dependencies: ["SluiceCore", "SluiceLakehouse", "SluiceNet", nioCore]),
        // HTTP/1.1 and HTTP/2 servers over SluiceNet's codecs: a router with middleware, one server in the background
        // per port, authentication (SQL users, HTTP Basic) and TLS shared by all, and the Iceberg
        // REST catalog's server (the catalog itself is SluiceLakehouse's, framework-free).
        .target(name: "SluiceHTTP", dependencies: ["SluiceCore", "SluiceAuth", "SluiceLakehouse", "SluiceNet", nioCore, nioPosix]),
        // (SluiceBatch: an upsert sink indexes an epoch's keys with the batch GROUP BY's table.)
        .target(name: "SluiceConnectors", dependencies: ["SluiceCore", "SluiceExpr", "SluiceState", "SluiceDataflow", "SluiceBatch", "SluiceFormats", "SluiceKafkaClient", "SluiceKafkaProtocol", "SluiceLakehouse", "SluiceLakehouseClients", "SluicePostgresClient"]),
        .target(name: "SluicePGWire", dependencies: ["SluiceCore", "SluiceAuth", nioCore, nioPosix]),
        .target(
            name: "SluiceServer",
            dependencies: [
                "SluiceCore", "SluiceAuth", "SluiceCrypto", "SluiceSQL", "SluiceExpr", "SluicePlan", "SluicePlanner", "SluiceState",
                "SluiceBatch", "SluiceDataflow", "SluiceFormats", "SluiceNet", "SluicePGWire", "SluiceBroker", "SluiceLakehouse",
                "SluiceLakehouseClients", "SluiceHTTP", "SluiceKafkaClient", nioCore, nioPosix,
            ]
        ),
        .target(name: "SluiceGen", dependencies: ["SluiceCore"]),
        .target(name: "SluiceBench", dependencies: ["SluiceCore", "SluiceAuth", "SluiceCodecs", "SluiceFormats", "SluiceGen", "SluiceServer", "SluicePGWire", "SluiceBroker", "SluiceKafkaProtocol", "SluiceKafkaClient", "SluiceConnectors", "SluiceLakehouse", "SluicePostgresClient", "SluiceNet", nioCore]),
        // The command line: options and dispatch, run once per command (the work is in the
        // optimized modules it calls), so unoptimized (4 CPU-s instead of 13). It does not import
        // SluiceBench: the two compile side by side.
        .target(
            name: "SluiceCLI",
            dependencies: [
                "SluiceCore", "SluiceFormats", "SluiceServer", "SluiceConnectors", "SluiceGen", "SluiceSQL", "SluicePGWire", "SluiceBroker",
                "SluiceKafkaProtocol", "SluiceKafkaClient", "SluiceState", "SluicePostgresClient", "SluiceCommandLine", "SluiceNet", nioCore,
            ],
            swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .release))]
        ),
        // The executable: the command line with `sluice bench`'s commands, the last module
        // before the link, so it is kept small.
        .executableTarget(
            name: "sluice",
            dependencies: ["SluiceCLI", "SluiceBench", "SluiceCommandLine", "SluiceServer", "SluiceState"],
            swiftSettings: [.unsafeFlags(["-Onone"], .when(configuration: .release))]
        ),

        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore"]),
        .testTarget(name: "SluiceCommandLineTests", dependencies: ["SluiceCommandLine"]),
        .testTarget(name: "SluiceAuthTests", dependencies: ["SluiceCore", "SluiceAuth"]),
        .testTarget(name: "SluiceCryptoTests", dependencies: ["SluiceCore", "SluiceCrypto"]),
        .testTarget(name: "SluiceNetTests", dependencies: ["SluiceCore", "SluiceNet", nioCore, nioPosix, nioHTTP1]),
        // The tests reach zstd directly to write frames without a content size, as streaming producers do.
        .testTarget(name: "SluiceCodecsTests", dependencies: ["SluiceCore", "SluiceCodecs", "CZstd"]),
        .testTarget(
            name: "SluiceBrokerTests",
            dependencies: [
                "SluiceCore", "SluiceAuth", "SluiceCodecs", "SluiceKafkaProtocol", "SluiceBroker", nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        // The client's tests run against the built-in broker, in process.
        .testTarget(name: "SluiceKafkaClientTests", dependencies: ["SluiceCore", "SluiceAuth", "SluiceKafkaClient", "SluiceBroker"]),
        .testTarget(name: "SluiceKafkaProtocolTests", dependencies: ["SluiceCore", "SluiceCodecs", "SluiceKafkaProtocol", nioCore]),
        .testTarget(name: "SluiceFormatsTests", dependencies: ["SluiceCore", "SluiceCodecs", "SluiceFormats"], exclude: ["Fixtures"]),
        .testTarget(
            name: "SluiceLakehouseTests",
            dependencies: ["SluiceCore", "SluiceFormats", "SluiceLakehouse", "SluiceLakehouseClients", nioCore],
            exclude: ["Fixtures", "Iceberg/Scan/Fixtures"]),
        .testTarget(name: "SluiceHTTPTests", dependencies: ["SluiceCore", "SluiceLakehouse", "SluiceLakehouseClients", "SluiceHTTP", "SluiceNet", nioCore]),
        .testTarget(name: "SluiceSQLTests", dependencies: ["SluiceCore", "SluiceSQL"]),
        .testTarget(name: "SluiceExprTests", dependencies: ["SluiceCore", "SluiceExpr"]),
        .testTarget(name: "SluicePlannerTests", dependencies: ["SluiceCore", "SluiceSQL", "SluicePlanner", "SluicePlan", "SluiceExpr"], exclude: ["Goldens"]),
        .testTarget(name: "SluiceStateTests", dependencies: ["SluiceCore", "SluiceCodecs", "SluiceState"]),
        // SluiceBatch is the oracle the stream operators are checked against.
        .testTarget(name: "SluiceDataflowTests", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState", "SluiceDataflow", "SluiceBatch"]),
        .testTarget(name: "SluiceBatchTests", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState", "SluiceBatch"]),
        .testTarget(name: "SluicePGWireTests", dependencies: ["SluiceCore", "SluiceAuth", "SluicePGWire", nioCore, .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(name: "SluiceGenTests", dependencies: ["SluiceCore", "SluiceGen"]),
        .testTarget(name: "SluiceServerTests", dependencies: ["SluiceCore", "SluiceServer", "SluicePGWire", "SluiceState", "SluiceHTTP"]),
        // Each connector's own logic, without a server: upsert batches, CDC decoding, file writes.
        .testTarget(name: "SluiceConnectorsTests", dependencies: ["SluiceCore", "SluiceConnectors", "SluiceDataflow", "SluiceLakehouse", "SluicePostgresClient"]),
    ]
)

// The data path's modules drop the run-time exclusivity checks in release builds: every read of
// a class's array (an accumulator's counts, a page's rows) otherwise calls into the runtime,
// which cost about a tenth of a busy aggregate's time. The compile-time checks stay, and debug
// builds, which run the tests, keep the run-time ones.
for target in package.targets where ["SluiceCore", "SluiceExpr", "SluiceState", "SluiceDataflow", "SluiceBatch", "SluiceFormats"].contains(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
}
