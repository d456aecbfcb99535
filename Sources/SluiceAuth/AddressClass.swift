import NIOCore

extension SocketAddress {
    /// Whether this is a loopback address (127.0.0.0/8, ::1, an IPv4-mapped 127.x.y.z, or a Unix
    /// socket): the address class whose clients `--auth-loopback` rules, on every port.
    package var isLoopback: Bool {
        switch self {
        case .v4(let v4): return UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24 == 127
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes == [UInt8](repeating: 0, count: 15) + [1] { return true }
            return bytes[0 ..< 10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
        case .unixDomainSocket: return true
        }
    }
}
