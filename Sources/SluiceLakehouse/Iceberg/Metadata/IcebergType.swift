import SluiceCore

/// An Iceberg data type (Iceberg spec: "Schemas and Data Types", v2).
///
/// Nested types carry the ids of their element, key and value fields; those ids are part of the
/// table's field-id space tracked by `last-column-id`.
package indirect enum IcebergType: Hashable, Sendable {
    case boolean
    /// 32-bit signed integer.
    case int
    /// 64-bit signed integer.
    case long
    case float
    case double
    /// Fixed-point decimal; precision at most 38.
    case decimal(precision: Int, scale: Int)
    /// Days since 1970-01-01.
    case date
    /// Microseconds since midnight.
    case time
    /// Microseconds since the epoch, no zone.
    case timestamp
    /// Microseconds since the epoch, UTC.
    case timestamptz
    case string
    case uuid
    /// Fixed-length byte array of the given length.
    case fixed(Int)
    case binary
    case structure(IcebergStructType)
    case list(IcebergListType)
    case map(IcebergMapType)

    package var isPrimitive: Bool {
        switch self {
        case .structure, .list, .map: false
        default: true
        }
    }

    /// The spec's name for a primitive type (`decimal(P, S)` with Java's spacing, `fixed[L]`).
    package var primitiveName: String? {
        switch self {
        case .boolean: "boolean"
        case .int: "int"
        case .long: "long"
        case .float: "float"
        case .double: "double"
        case .decimal(let precision, let scale): "decimal(\(precision), \(scale))"
        case .date: "date"
        case .time: "time"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamptz"
        case .string: "string"
        case .uuid: "uuid"
        case .fixed(let length): "fixed[\(length)]"
        case .binary: "binary"
        case .structure, .list, .map: nil
        }
    }

    /// Parses a primitive type name; accepts `decimal(P,S)` with or without spaces.
    package init?(primitiveName name: String) {
        switch name {
        case "boolean": self = .boolean
        case "int": self = .int
        case "long": self = .long
        case "float": self = .float
        case "double": self = .double
        case "date": self = .date
        case "time": self = .time
        case "timestamp": self = .timestamp
        case "timestamptz": self = .timestamptz
        case "string": self = .string
        case "uuid": self = .uuid
        case "binary": self = .binary
        default:
            if name.hasPrefix("fixed["), name.hasSuffix("]"),
               let length = Int(name.dropFirst(6).dropLast()), length > 0 {
                self = .fixed(length)
                return
            }
            if name.hasPrefix("decimal("), name.hasSuffix(")") {
                let parts = name.dropFirst(8).dropLast().split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2,
                      let precision = Int(parts[0].trimmingSpaces), let scale = Int(parts[1].trimmingSpaces),
                      (1 ... 38).contains(precision), (0 ... precision).contains(scale) else { return nil }
                self = .decimal(precision: precision, scale: scale)
                return
            }
            return nil
        }
    }
}

/// A struct type: an ordered list of fields.
package struct IcebergStructType: Hashable, Sendable {
    package var fields: [IcebergNestedField]

    package init(fields: [IcebergNestedField]) {
        self.fields = fields
    }
}

/// A field of a struct or schema.
package struct IcebergNestedField: Hashable, Sendable {
    package var id: Int
    package var name: String
    package var isRequired: Bool
    package var type: IcebergType
    package var doc: String?

    package init(id: Int, name: String, isRequired: Bool, type: IcebergType, doc: String? = nil) {
        self.id = id
        self.name = name
        self.isRequired = isRequired
        self.type = type
        self.doc = doc
    }
}

/// A list type: the element is a field with its own id.
package struct IcebergListType: Hashable, Sendable {
    package var elementID: Int
    package var element: IcebergType
    package var isElementRequired: Bool

    package init(elementID: Int, element: IcebergType, isElementRequired: Bool) {
        self.elementID = elementID
        self.element = element
        self.isElementRequired = isElementRequired
    }
}

/// A map type: keys are always required; values may be optional.
package struct IcebergMapType: Hashable, Sendable {
    package var keyID: Int
    package var key: IcebergType
    package var valueID: Int
    package var value: IcebergType
    package var isValueRequired: Bool

    package init(keyID: Int, key: IcebergType, valueID: Int, value: IcebergType, isValueRequired: Bool) {
        self.keyID = keyID
        self.key = key
        self.valueID = valueID
        self.value = value
        self.isValueRequired = isValueRequired
    }
}

extension IcebergType {
    /// The largest field id used inside this type (0 for primitives).
    package var highestFieldID: Int {
        switch self {
        case .structure(let structure): structure.fields.map { max($0.id, $0.type.highestFieldID) }.max() ?? 0
        case .list(let list): max(list.elementID, list.element.highestFieldID)
        case .map(let map): max(map.keyID, map.valueID, map.key.highestFieldID, map.value.highestFieldID)
        default: 0
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
