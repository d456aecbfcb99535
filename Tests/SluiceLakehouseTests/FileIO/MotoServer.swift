import Foundation
import SluiceCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A moto S3 server (`moto_server`) started for a test suite on a free loopback port, and
/// killed by its process id when the suite ends, whether it passed or not.
///
/// The executable is `$SLUICE_MOTO_SERVER`, else `<repository>/.venv/bin/moto_server`; if
/// neither exists the suite fails with a message saying so (it never skips).
final class MotoServer: Sendable {
    let port: Int
    private let process: Process

    var endpoint: String { "http://127.0.0.1:\(port)" }

    @TaskLocal static var current: MotoServer?

    static func executable() throws -> String {
        if let path = ProcessInfo.processInfo.environment["SLUICE_MOTO_SERVER"], !path.isEmpty {
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw SluiceError(.ioError, "SLUICE_MOTO_SERVER is \(path), which is not an executable file")
            }
            return path
        }
        // Tests/SluiceLakehouseTests/FileIO/MotoServer.swift → the repository root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0 ..< 4 { root.deleteLastPathComponent() }
        let path = root.appendingPathComponent(".venv/bin/moto_server").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw SluiceError(.ioError, "moto_server not found: set SLUICE_MOTO_SERVER or install moto[server] into \(root.path)/.venv")
        }
        return path
    }

    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    init() throws {
        port = try LocalProcess.freeLoopbackPort()
        process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable())
        process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Poll until it accepts connections (moto takes a second or two to import).
        let deadline = Date().addingTimeInterval(30)
        while !Self.accepts(port: port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw SluiceError(.ioError, "moto_server did not start listening on port \(port)")
            }
            usleep(50_000)
        }
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// Runs a suite with a ``MotoServer`` in ``MotoServer/current``; the server is stopped when
/// the suite ends.
struct MotoServerTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let server = try MotoServer()
        defer { server.stop() }
        try await MotoServer.$current.withValue(server) { try await function() }
    }
}

extension Trait where Self == MotoServerTrait {
    static var motoServer: Self { MotoServerTrait() }
}
