import Foundation
import NIOCore
import NIOPosix
import SluiceCore
import SluicePGWire

/// Configuration of `sluice serve`.
package struct ServerConfiguration: Sendable {
    package var sqlHost = "127.0.0.1"
    package var sqlPort = 4566
    package var dataDirectory: String? = "./sluice-data"
    package var authentication: PGAuthentication = .trust
    /// Milliseconds between barriers (RisingWave's `barrier_interval_ms`).
    package var barrierIntervalMilliseconds = 1000

    package init() {}
}

/// The running server: the SQL endpoint over one shared database.
package final class SluiceServer: Sendable {
    package let database: Database
    package let sqlServer: PGServer

    private init(database: Database, sqlServer: PGServer) {
        self.database = database
        self.sqlServer = sqlServer
    }

    package static func start(_ configuration: ServerConfiguration) async throws -> SluiceServer {
        let database = try Database(
            dataDirectory: configuration.dataDirectory, barrierIntervalMilliseconds: configuration.barrierIntervalMilliseconds)
        let sqlServer = try await PGServer.start(
            configuration: PGServerConfiguration(
                host: configuration.sqlHost, port: configuration.sqlPort, authentication: configuration.authentication),
            backend: SQLBackend(database: database))
        return SluiceServer(database: database, sqlServer: sqlServer)
    }

    /// Stops accepting connections and writes every table to the data directory.
    package func shutdown() async throws {
        try await sqlServer.shutdown()
        database.stop()
        try database.saveTables()
    }
}
