#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceCore

/// A throwaway PostgreSQL server for the benchmarks (`sluice bench copy`, `sinks`, `cdc`) and
/// the demo: Debian's binaries, a cluster made by `initdb` in a new directory under /tmp (superuser `root`, trust authentication, database
/// `dev`), listening on a free loopback port with PostgreSQL's durable defaults (`fsync` and
/// `synchronous_commit` on). As root, `initdb` and `postgres` run as the `postgres` user
/// through `runuser`, since PostgreSQL refuses to run as root. ``stop()`` ends it by PID and
/// removes the directory. `sluice demo cricket` uses one as its upstream and warehouse.
package final class PostgresReference {
    /// How to reach database `database` of this server, as its `root` superuser.
    package func settings(database: String = "dev") -> PostgresConnectionSettings {
        PostgresConnectionSettings(host: "127.0.0.1", port: String(port), database: database, user: "root")
    }

    package let port: Int
    let directory: String
    let process: Process

    private init(port: Int, directory: String, process: Process) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` and `postgres`
    /// (`$PG_BINDIR` when set); nil when PostgreSQL is not installed.
    package static func binaryDirectory() -> String? {
        let fileManager = FileManager.default
        func holdsServer(_ path: String) -> Bool {
            fileManager.isExecutableFile(atPath: "\(path)/initdb") && fileManager.isExecutableFile(atPath: "\(path)/postgres")
        }
        if let path = ProcessInfo.processInfo.environment["PG_BINDIR"], holdsServer(path) { return path }
        let versions = (try? fileManager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.compactMap { Int($0) }.sorted().reversed().map { "/usr/lib/postgresql/\($0)/bin" }.first(where: holdsServer)
    }

    /// Makes a cluster and starts `postgres`, returning once it accepts logins.
    /// `settings` are more `-c name=value` server settings (`wal_level=logical`).
    /// `progress` is told what it waits for.
    package static func start(
        binaries: String, settings: [String] = [], progress: @escaping (String) -> Void = { _ in }
    ) throws -> PostgresReference {
        let directory = "/tmp/sluice-bench-copy-postgres-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let asServerUser = geteuid() == 0
        if asServerUser {
            guard let user = getpwnam("postgres"), chown(directory, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                try? FileManager.default.removeItem(atPath: directory)
                throw SluiceError(.ioError, "cannot give \(directory) to the postgres user (is the postgresql package installed?)")
            }
        }
        let prefix = asServerUser ? ["runuser", "-u", "postgres", "--"] : []
        let initdb = try LocalProcess.run(prefix + [
            "\(binaries)/initdb", "-D", "\(directory)/data", "-U", "root", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions",
        ])
        guard initdb.status == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw SluiceError(.ioError, "initdb failed: \(initdb.errors)")
        }
        let port = try LocalProcess.freeLoopbackPort()
        let logPath = "\(directory)/postgres.log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil), let log = FileHandle(forWritingAtPath: logPath) else {
            try? FileManager.default.removeItem(atPath: directory)
            throw SluiceError(.ioError, "cannot create \(logPath)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = prefix + [
            "\(binaries)/postgres", "-D", "\(directory)/data", "-p", String(port), "-k", directory,
            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=on", "-c", "synchronous_commit=on",
        ] + settings.flatMap { ["-c", $0] }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        try? log.close()
        let server = PostgresReference(port: port, directory: directory, process: process)
        do {
            try server.waitUntilReady(binaries: binaries, progress: progress)
            _ = try Self.psql(port: port, database: "postgres", "CREATE DATABASE dev")
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Polls `pg_isready` until the server accepts connections; fails after a minute or when
    /// `postgres` has exited, with the end of its log.
    private func waitUntilReady(binaries: String, progress: (String) -> Void) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            progress("starting PostgreSQL on port \(port)")
            let probe = try LocalProcess.run(["\(binaries)/pg_isready", "-q", "-h", "127.0.0.1", "-p", String(port)])
            if probe.status == 0 { return }
            guard process.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: "\(directory)/postgres.log", encoding: .utf8)) ?? ""
                throw SluiceError(.ioError, "PostgreSQL did not start: \(log.suffix(2000))")
            }
            usleep(20_000)
        }
    }

    /// Sends SIGTERM to the postmaster (whose PID `postmaster.pid` holds; `runuser` passes its
    /// own signals on too), waits for it to end, SIGKILL after 30 s, and removes the directory.
    package func stop() {
        let pidFile = (try? String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8)) ?? ""
        let postmaster = pidFile.split(separator: "\n").first.flatMap { pid_t($0) }
        if process.isRunning {
            if let postmaster { kill(postmaster, SIGTERM) } else { kill(process.processIdentifier, SIGTERM) }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
        if process.isRunning {
            if let postmaster { kill(postmaster, SIGKILL) }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `commands` with `psql` as `root` against database `database` of the server on
    /// `port`; returns its unaligned, tuples-only output.
    package static func psql(port: Int, database: String = "dev", _ commands: String...) throws -> String {
        var arguments = ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "root", "-d", database]
        for command in commands { arguments += ["-c", command] }
        let result = try LocalProcess.run(arguments)
        guard result.status == 0 else {
            throw SluiceError(.ioError, "psql failed on port \(port) (is the postgresql-client package installed?): \(result.errors)")
        }
        return result.output
    }
}
