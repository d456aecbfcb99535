import Foundation
import NIOCore
import SluiceCore
import Testing
@testable import SluicePGWire

/// End-to-end: a real PGServer on 127.0.0.1, port 0, driven by a raw-protocol client and psql.
@Suite(.serialized) struct PGServerTests {
    typealias B = FrontendBytes

    func withServer(
        _ authentication: PGAuthentication = .trust, backend: FakeBackend = FakeBackend(),
        _ body: (PGServer) async throws -> Void
    ) async throws {
        let server = try await PGServer.start(
            configuration: PGServerConfiguration(host: "127.0.0.1", port: 0, authentication: authentication),
            backend: backend
        )
        do {
            try await body(server)
        } catch {
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    @Test func startupSimpleAndExtendedQuery() async throws {
        try await withServer { server in
            #expect(server.port > 0)
            let client = try RawPGClient(port: server.port)
            client.send(B.sslRequest)
            #expect(try client.readByte() == UInt8(ascii: "N"))
            let greeting = try client.startup()
            #expect(greeting.first == RawBackendMessage(type: "R", body: [0, 0, 0, 0]))
            #expect(greeting.contains { $0.type == "S" && $0.body == Array("server_version".utf8) + [0] + Array("13.14.0".utf8) + [0] })
            #expect(greeting.contains { $0.type == "S" && $0.body == Array("application_name".utf8) + [0] + Array("raw".utf8) + [0] })
            #expect(greeting.suffix(2).map(\.type) == ["K", "Z"])

            // Simple query: two statements, then one ReadyForQuery.
            client.send(B.query("select 1; create_table"))
            let simple = try client.readMessages(through: "Z")
            #expect(simple.map(\.type) == ["T", "D", "C", "C", "Z"])
            #expect(simple[1].dataRowTexts == ["1"])
            #expect(simple[2].cStringBody == "SELECT 1")
            #expect(simple[3].cStringBody == "CREATE_TABLE")

            // An error stops the rest; an empty query gets EmptyQueryResponse.
            client.send(B.query("syntax; select 1"))
            let failed = try client.readMessages(through: "Z")
            #expect(failed.map(\.type) == ["E", "Z"])
            #expect(failed[0].errorFields["C"] == "42601")
            #expect(failed[0].errorFields["P"] == "1")
            client.send(B.query(" ; "))
            #expect(try client.readMessages(through: "Z").map(\.type) == ["I", "Z"])

            // Extended query with a row limit: the portal keeps the remaining rows.
            client.send(B.parse("s1", "select many") + B.bind(portal: "p", statement: "s1") + B.describe("P", "p")
                + B.execute("p", maxRows: 2) + B.execute("p", maxRows: 2) + B.sync)
            let extended = try client.readMessages(through: "Z")
            #expect(extended.map(\.type) == ["1", "2", "T", "D", "D", "s", "D", "C", "Z"])
            #expect(extended.filter { $0.type == "D" }.map(\.dataRowTexts) == [["1"], ["2"], ["3"]])
            #expect(extended[7].cStringBody == "SELECT 1")

            // Parameters in binary, results in binary, declared OID.
            client.send(B.parse("", "select $1", oids: [23]) + B.describe("S", "")
                + B.bind(portal: "", statement: "", parameterFormats: [1], parameters: [[0, 0, 0, 42]], resultFormats: [1])
                + B.execute("") + B.sync)
            let binary = try client.readMessages(through: "Z")
            #expect(binary.map(\.type) == ["1", "t", "T", "2", "D", "C", "Z"])
            #expect(binary[1].body == [0, 1, 0, 0, 0, 23])
            #expect(binary[4].body == [0, 1, 0, 0, 0, 4, 0, 0, 0, 42])

            // Errors skip to Sync.
            client.send(B.bind(portal: "", statement: "nope") + B.execute("") + B.sync + B.query("select 1"))
            let skipped = try client.readMessages(through: "Z")
            #expect(skipped.map(\.type) == ["E", "Z"])
            #expect(skipped[0].errorFields["C"] == "26000")
            #expect(try client.readMessages(through: "Z").map(\.type) == ["T", "D", "C", "Z"])

            client.send(B.parse("two", "select 1; select 2") + B.sync)
            let multiple = try client.readMessages(through: "Z")
            #expect(multiple.first?.errorFields["M"] == "cannot insert multiple commands into a prepared statement")

            client.send(B.terminate)
            #expect(client.readUntilClosed().isEmpty)
        }
    }

    @Test func cancelRequestStopsARunningQuery() async throws {
        let backend = FakeBackend()
        try await withServer(backend: backend) { server in
            let client = try RawPGClient(port: server.port)
            let greeting = try client.startup()
            guard let keyData = greeting.first(where: { $0.type == "K" }) else { Issue.record("no BackendKeyData"); return }
            client.send(B.query("select sleep"))
            // A cancel that arrives before the statement runs has nothing to stop.
            while backend.sleeps.started.load(ordering: .sequentiallyConsistent) == 0 { try await Task.sleep(for: .milliseconds(1)) }

            let wrongKey = try RawPGClient(port: server.port)
            wrongKey.send(B.int32(16) + B.int32(80_877_102) + Array(keyData.body[0 ..< 4]) + B.int32(12345))
            #expect(wrongKey.readUntilClosed().isEmpty)

            let canceller = try RawPGClient(port: server.port)
            canceller.send(B.int32(16) + B.int32(80_877_102) + keyData.body)
            #expect(canceller.readUntilClosed().isEmpty)

            let messages = try client.readMessages(through: "Z")
            #expect(messages.map(\.type) == ["E", "Z"])
            #expect(messages.first?.errorFields["C"] == "57014")
        }
    }

    @Test func manyConcurrentConnections() async throws {
        try await withServer { server in
            let port = server.port
            // Blocking clients run on their own threads: on the cooperative pool they would starve
            // the backend calls the server runs there.
            try await withThrowingTaskGroup(of: [String?].self) { group in
                for index in 0 ..< 20 {
                    group.addTask {
                        try await onThread {
                            let client = try RawPGClient(port: port)
                            _ = try client.startup()
                            client.send(FrontendBytes.parse("", "select $1") + FrontendBytes.bind(portal: "", statement: "", parameters: [Array("\(index)".utf8)])
                                + FrontendBytes.execute("") + FrontendBytes.sync)
                            return try client.readMessages(through: "Z").first { $0.type == "D" }?.dataRowTexts ?? []
                        }
                    }
                }
                var seen: Set<String> = []
                for try await row in group { seen.insert(row.first.flatMap { $0 } ?? "") }
                #expect(seen == Set((0 ..< 20).map(String.init)))
            }
        }
    }

    @Test func unknownDatabaseIsFatal() async throws {
        try await withServer { server in
            let client = try RawPGClient(port: server.port)
            client.send(B.startup([("user", "root"), ("database", "missing")]))
            let messages = try client.readMessages(through: "E")
            #expect(messages.map(\.type) == ["R", "E"])
            #expect(messages.last?.errorFields["C"] == "3D000")
            #expect(client.readUntilClosed().isEmpty)
        }
    }

    @Test func cleartextPasswordOverTheWire() async throws {
        try await withServer(.cleartext(users: ["root": "pw"])) { server in
            let client = try RawPGClient(port: server.port)
            client.send(B.startup([("user", "root")]))
            #expect(try client.readMessages(through: "R") == [RawBackendMessage(type: "R", body: [0, 0, 0, 3])])
            client.send(B.password("pw"))
            #expect(try client.readMessages(through: "Z").first?.body == [0, 0, 0, 0])
        }
    }

    @Test func failedLoginsAreDelayedAndCountedWithoutHoldingOthersUp() async throws {
        try await withServer(.cleartext(users: ["root": "pw"])) { server in
            // Ten clients with wrong passwords at once, and a right one among them.
            let failures = try await withThrowingTaskGroup(of: (ContinuousClock.Duration, String?).self) { group in
                for _ in 0 ..< 10 {
                    group.addTask {
                        try await onThread {
                            let client = try RawPGClient(port: server.port)
                            client.send(B.startup([("user", "root")]))
                            _ = try client.readMessages(through: "R")
                            let start = ContinuousClock.now
                            client.send(B.password("guess"))
                            let error = try client.readMessages(through: "E").last?.errorFields["C"]
                            return (ContinuousClock.now - start, error)
                        }
                    }
                }
                let right = try await onThread {
                    let client = try RawPGClient(port: server.port)
                    client.send(B.startup([("user", "root")]))
                    _ = try client.readMessages(through: "R")
                    let start = ContinuousClock.now
                    client.send(B.password("pw"))
                    #expect(try client.readMessages(through: "Z").first?.body == [0, 0, 0, 0])
                    return ContinuousClock.now - start
                }
                #expect(right < .seconds(1), "the right password waited for the wrong ones")
                var results: [(ContinuousClock.Duration, String?)] = []
                for try await result in group { results.append(result) }
                return results
            }
            #expect(failures.count == 10)
            for (waited, code) in failures {
                #expect(code == "28P01")
                #expect(waited >= .milliseconds(250))
            }
            #expect(server.failedLogins == 10)
        }
    }

    @Test func loopbackAddresses() throws {
        #expect(PGServer.isLoopback(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(PGServer.isLoopback(try SocketAddress(ipAddress: "127.9.8.7", port: 1)))
        #expect(PGServer.isLoopback(try SocketAddress(ipAddress: "::1", port: 1)))
        #expect(PGServer.isLoopback(try SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 1)))
        #expect(!PGServer.isLoopback(try SocketAddress(ipAddress: "10.0.0.1", port: 1)))
        #expect(!PGServer.isLoopback(try SocketAddress(ipAddress: "128.0.0.1", port: 1)))
        #expect(!PGServer.isLoopback(try SocketAddress(ipAddress: "::2", port: 1)))
        #expect(!PGServer.isLoopback(try SocketAddress(ipAddress: "::ffff:10.0.0.1", port: 1)))
    }

    @Test func psqlSelectOne() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/psql") else { return }
        for authentication in [PGAuthentication.trust, .scramSHA256(users: ["root": "s3cret"])] {
            try await withServer(authentication) { server in
                let output = try await runPSQL(port: server.port, password: "s3cret")
                #expect(output.status == 0, "\(output.text)")
                #expect(output.text.contains("?column?"), "\(output.text)")
                #expect(output.text.contains("(1 row)"), "\(output.text)")
            }
        }
        // A wrong password reaches psql as the server's FATAL error.
        try await withServer(.scramSHA256(users: ["root": "s3cret"])) { server in
            let output = try await runPSQL(port: server.port, password: "wrong")
            #expect(output.status != 0)
            #expect(output.text.contains("password authentication failed for user \"root\""), "\(output.text)")
        }
    }

    func runPSQL(port: Int, password: String) async throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-U", "root", "-d", "dev", "-c", "select 1"]
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = password
        environment["PGCONNECT_TIMEOUT"] = "10"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        return (status, String(decoding: data, as: UTF8.self))
    }
}

/// Runs blocking `body` on a new thread and returns its result.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
