#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Programs run to their end and loopback ports for servers started beside this process: the
/// benchmarks' and the demo's reference servers (PostgreSQL, a broker in another process).
package enum LocalProcess {
    /// Runs `arguments` through `/usr/bin/env` and waits; its standard error goes to a file so
    /// that neither pipe can fill while the other is read.
    package static func run(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let errorPath = NSTemporaryDirectory() + "sluice-process-stderr-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: errorPath, contents: nil), let errorFile = FileHandle(forWritingAtPath: errorPath) else {
            throw SluiceError(.ioError, "cannot create \(errorPath)")
        }
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorFile
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorFile.close()
        let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return (process.terminationStatus, String(decoding: data, as: UTF8.self), errors.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0 and released).
    package static func freeLoopbackPort() throws(SluiceError) -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw SluiceError(.ioError, "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
