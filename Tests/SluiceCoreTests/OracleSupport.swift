import Testing
@testable import SluiceCore

/// The type an oracle file names (`int4`, `numeric(5,2)`, `text[]`).
func oracleType(_ name: String) -> DataType {
    if name.hasSuffix("[]") { return .list(oracleType(String(name.dropLast(2)))) }
    switch name {
    case "bool": return .boolean
    case "int2": return .int16
    case "int4": return .int32
    case "int8": return .int64
    case "float4": return .float32
    case "float8": return .float64
    case "numeric": return .numeric
    case "numeric(5,2)": return .decimal(precision: 5, scale: 2)
    case "numeric(3,0)": return .decimal(precision: 3, scale: 0)
    case "numeric(2,2)": return .decimal(precision: 2, scale: 2)
    case "text", "varchar": return .varchar
    case "date": return .date
    case "time": return .time
    case "timestamp": return .timestamp
    case "timestamptz": return .timestamptz
    case "interval": return .interval
    case "jsonb": return .jsonb
    case "bytea": return .bytea
    default: fatalError("unknown oracle type \(name)")
    }
}

/// An oracle result: `ok:<text>` or `err:<SQLSTATE>:<message>`.
enum OracleResult: Equatable, CustomStringConvertible {
    case ok(String)
    case error(code: String, message: String)

    init(_ encoded: String) {
        if encoded.hasPrefix("ok:") {
            self = .ok(String(encoded.dropFirst(3)))
        } else {
            let body = encoded.dropFirst(4)
            self = .error(code: String(body.prefix(5)), message: String(body.dropFirst(6)))
        }
    }

    /// The outcome of `body`, in the same shape.
    init(_ body: () throws(SluiceError) -> String) {
        do {
            self = .ok(try body())
        } catch {
            self = .error(code: error.code.code, message: error.message)
        }
    }

    var description: String {
        switch self {
        case .ok(let text): "ok:\(text)"
        case .error(let code, let message): "err:\(code):\(message)"
        }
    }
}
