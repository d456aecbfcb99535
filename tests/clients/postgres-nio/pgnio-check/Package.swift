// swift-tools-version:6.1
// A real postgres-nio client for the end-to-end suite (tests/e2e/test_postgres_nio.py builds and
// runs it): `pgnio-check HOST PORT [USER] [DATABASE]` exits 0 only if every check passes.
import PackageDescription

let package = Package(
    name: "pgnio-check",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "pgnio-check",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
