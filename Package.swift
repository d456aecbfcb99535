// swift-tools-version: 6.1
import PackageDescription

// Layers (see docs/architecture in shared ARCHITECTURE.md): imports point only down.
// L0 SluiceCore · L1 SluiceSQL, SluiceExpr, SluicePlan · L2 SluicePlanner, SluiceState, SluiceBatch
// L3 SluicePGWire · L4 SluiceServer, SluiceBench · L5 sluice
let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "SluiceCore"),
        .target(name: "SluiceCodecs"),
        .target(name: "SluiceKafkaProtocol", dependencies: ["SluiceCore", "SluiceCodecs", nioCore]),
        .target(name: "SluiceBroker", dependencies: ["SluiceCore", "SluiceCodecs", "SluiceKafkaProtocol", nioCore, nioPosix]),
        .target(name: "SluiceSQL", dependencies: ["SluiceCore"]),
        .target(name: "SluiceExpr", dependencies: ["SluiceCore"]),
        .target(name: "SluicePlan", dependencies: ["SluiceCore", "SluiceExpr"]),
        .target(name: "SluiceState", dependencies: ["SluiceCore"]),
        .target(name: "SluicePlanner", dependencies: ["SluiceCore", "SluiceExpr", "SluiceSQL", "SluicePlan"]),
        .target(name: "SluiceBatch", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"]),
        .target(name: "SluiceDataflow", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"]),
        .target(name: "SluiceConnectors", dependencies: ["SluiceCore", "SluiceDataflow"]),
        .target(name: "SluicePGWire", dependencies: ["SluiceCore", nioCore, nioPosix]),
        .target(
            name: "SluiceServer",
            dependencies: [
                "SluiceCore", "SluiceSQL", "SluiceExpr", "SluicePlan", "SluicePlanner", "SluiceState",
                "SluiceBatch", "SluiceDataflow", "SluiceConnectors", "SluicePGWire", "SluiceBroker", nioCore, nioPosix,
            ]
        ),
        .target(name: "SluiceGen", dependencies: ["SluiceCore"]),
        .target(name: "SluiceBench", dependencies: ["SluiceCore", "SluiceServer", "SluiceBroker", "SluiceKafkaProtocol", nioCore]),
        .executableTarget(
            name: "sluice",
            dependencies: [
                "SluiceCore", "SluiceServer", "SluiceBench", "SluiceGen", "SluiceSQL", "SluicePGWire", "SluiceBroker", "SluiceKafkaProtocol", nioCore,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore"]),
        .testTarget(name: "SluiceCodecsTests", dependencies: ["SluiceCodecs"]),
        .testTarget(
            name: "SluiceBrokerTests",
            dependencies: [
                "SluiceCore", "SluiceCodecs", "SluiceKafkaProtocol", "SluiceBroker", nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]),
        .testTarget(name: "SluiceKafkaProtocolTests", dependencies: ["SluiceCore", "SluiceCodecs", "SluiceKafkaProtocol", nioCore]),
        .testTarget(name: "SluiceSQLTests", dependencies: ["SluiceCore", "SluiceSQL"]),
        .testTarget(name: "SluiceExprTests", dependencies: ["SluiceCore", "SluiceExpr"]),
        .testTarget(name: "SluicePlannerTests", dependencies: ["SluiceCore", "SluiceSQL", "SluicePlanner", "SluicePlan", "SluiceExpr"]),
        .testTarget(name: "SluiceStateTests", dependencies: ["SluiceCore", "SluiceState"]),
        // SluiceBatch is the oracle the stream operators are checked against.
        .testTarget(name: "SluiceDataflowTests", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState", "SluiceDataflow", "SluiceBatch"]),
        .testTarget(name: "SluiceBatchTests", dependencies: ["SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState", "SluiceBatch"]),
        .testTarget(name: "SluicePGWireTests", dependencies: ["SluiceCore", "SluicePGWire", nioCore, .product(name: "NIOEmbedded", package: "swift-nio")]),
        .testTarget(name: "SluiceGenTests", dependencies: ["SluiceCore", "SluiceGen"]),
        .testTarget(name: "SluiceServerTests", dependencies: ["SluiceCore", "SluiceServer", "SluicePGWire", "SluicePlanner"]),
    ]
)
