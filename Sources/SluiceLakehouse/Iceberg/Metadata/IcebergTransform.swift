import SluiceCore

/// A partition or sort transform (Iceberg spec: "Partition Transforms").
///
/// Transforms this reader does not know are kept by name (`unknown`) so metadata written by a
/// newer engine still round-trips; applying one is an error.
package enum IcebergTransform: Hashable, Sendable, CustomStringConvertible {
    case identity
    /// Hash into `N` buckets: `(murmur3_x86_32(bytes) & Int32.max) % N`.
    case bucket(Int)
    /// Round down to a multiple of `W` (numbers), or keep the first `W` code points or bytes.
    case truncate(Int)
    case year
    case month
    case day
    case hour
    /// Always null; used to drop a partition field in v1 tables.
    case void
    case unknown(String)

    /// The spec's text form: `identity`, `bucket[16]`, `truncate[4]`, `year`, ...
    package var description: String {
        switch self {
        case .identity: "identity"
        case .bucket(let count): "bucket[\(count)]"
        case .truncate(let width): "truncate[\(width)]"
        case .year: "year"
        case .month: "month"
        case .day: "day"
        case .hour: "hour"
        case .void: "void"
        case .unknown(let name): name
        }
    }

    package init(_ text: String) {
        switch text {
        case "identity": self = .identity
        case "year": self = .year
        case "month": self = .month
        case "day": self = .day
        case "hour": self = .hour
        case "void": self = .void
        default:
            if text.hasPrefix("bucket["), text.hasSuffix("]"), let count = Int(text.dropFirst(7).dropLast()), count > 0 {
                self = .bucket(count)
            } else if text.hasPrefix("truncate["), text.hasSuffix("]"), let width = Int(text.dropFirst(9).dropLast()), width > 0 {
                self = .truncate(width)
            } else {
                self = .unknown(text)
            }
        }
    }

    /// The type of the transform's output for a source column of type `source`.
    ///
    /// `day` produces `date` as Java's `Days` and pyiceberg's `DayTransform` do (the spec's
    /// table says `int`; a date is an int of days on disk).
    /// - Throws: `0A000` when the transform does not apply to the source type.
    package func resultType(for source: IcebergType) throws(SluiceError) -> IcebergType {
        func unsupported() -> SluiceError {
            SluiceError(.featureNotSupported, "transform \(self) cannot be applied to type \(source.primitiveName ?? "nested")")
        }
        switch self {
        case .identity, .void:
            guard source.isPrimitive else { throw unsupported() }
            return source
        case .bucket:
            switch source {
            case .int, .long, .decimal, .date, .time, .timestamp, .timestamptz, .string, .uuid, .fixed, .binary: return .int
            default: throw unsupported()
            }
        case .truncate:
            switch source {
            case .int, .long, .decimal, .string, .binary: return source
            default: throw unsupported()
            }
        case .year, .month:
            switch source {
            case .date, .timestamp, .timestamptz: return .int
            default: throw unsupported()
            }
        case .day:
            switch source {
            case .date, .timestamp, .timestamptz: return .date
            default: throw unsupported()
            }
        case .hour:
            switch source {
            case .timestamp, .timestamptz: return .int
            default: throw unsupported()
            }
        case .unknown:
            throw unsupported()
        }
    }
}
