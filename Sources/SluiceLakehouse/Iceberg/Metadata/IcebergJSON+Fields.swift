import SluiceCore

/// Typed access to the members of one JSON object, with errors that name the object and key.
///
/// Absent keys and `null` read alike for the optional accessors: Iceberg writers differ on
/// whether they omit an unset field or write `null` (and `-1` for "no snapshot" in old Java).
/// Unknown keys are simply never asked for, which is how readers tolerate newer writers.
package struct IcebergJSONFields {
    package let members: [JSONDocument.Member]
    /// What the object is (`table metadata`, `snapshot`), for error messages.
    package let context: String

    package init(_ value: JSONDocument, context: String) throws(SluiceError) {
        guard case .object(let members) = value else { throw IcebergJSONFields.malformed("\(context) must be a JSON object") }
        self.members = members
        self.context = context
    }

    package static func malformed(_ message: String) -> SluiceError {
        SluiceError(.invalidParameterValue, message)
    }

    package func value(_ key: String) -> JSONDocument? {
        guard let value = members.first(where: { $0.key == key })?.value else { return nil }
        if case .null = value { return nil }
        return value
    }

    package func has(_ key: String) -> Bool { value(key) != nil }

    func missing(_ key: String) -> SluiceError {
        IcebergJSONFields.malformed("\(context) is missing \"\(key)\"")
    }

    func wrongType(_ key: String, _ expected: String) -> SluiceError {
        IcebergJSONFields.malformed("\(context) field \"\(key)\" must be \(expected)")
    }

    package func optionalInt64(_ key: String) throws(SluiceError) -> Int64? {
        guard let value = value(key) else { return nil }
        switch value {
        case .int(let integer): return integer
        // Some writers emit integral doubles (`1.0`); accept them when exact.
        case .double(let double) where double.rounded() == double && abs(double) < 9.0e15: return Int64(double)
        default: throw wrongType(key, "an integer")
        }
    }

    package func int64(_ key: String) throws(SluiceError) -> Int64 {
        guard let value = try optionalInt64(key) else { throw missing(key) }
        return value
    }

    package func optionalInt(_ key: String) throws(SluiceError) -> Int? {
        guard let value = try optionalInt64(key) else { return nil }
        guard let narrowed = Int(exactly: value), (Int(Int32.min) ... Int(Int32.max)).contains(narrowed) else {
            throw wrongType(key, "a 32-bit integer")
        }
        return narrowed
    }

    package func int(_ key: String) throws(SluiceError) -> Int {
        guard let value = try optionalInt(key) else { throw missing(key) }
        return value
    }

    package func optionalString(_ key: String) throws(SluiceError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string") }
        return text
    }

    package func string(_ key: String) throws(SluiceError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    package func optionalBool(_ key: String) throws(SluiceError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, "a boolean") }
        return flag
    }

    package func bool(_ key: String) throws(SluiceError) -> Bool {
        guard let value = try optionalBool(key) else { throw missing(key) }
        return value
    }

    package func optionalArray(_ key: String) throws(SluiceError) -> [JSONDocument]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array") }
        return elements
    }

    package func array(_ key: String) throws(SluiceError) -> [JSONDocument] {
        guard let value = try optionalArray(key) else { throw missing(key) }
        return value
    }

    package func object(_ key: String) throws(SluiceError) -> IcebergJSONFields {
        guard let value = value(key) else { throw missing(key) }
        return try IcebergJSONFields(value, context: "\(context) \"\(key)\"")
    }

    package func optionalObject(_ key: String) throws(SluiceError) -> IcebergJSONFields? {
        guard let value = value(key) else { return nil }
        return try IcebergJSONFields(value, context: "\(context) \"\(key)\"")
    }

    /// A `{string: string}` object; non-string values (numbers, booleans some clients send in
    /// properties) are kept in their JSON text form, as pyiceberg's validators do.
    package func stringMap(_ key: String) throws(SluiceError) -> [String: String] {
        guard let value = value(key) else { return [:] }
        guard case .object(let members) = value else { throw wrongType(key, "an object") }
        var map: [String: String] = [:]
        for member in members {
            switch member.value {
            case .string(let text): map[member.key] = text
            case .null: continue
            case .array, .object: throw wrongType(key, "an object of strings")
            default: map[member.key] = member.value.text
            }
        }
        return map
    }

    package func int64Array(_ key: String) throws(SluiceError) -> [Int64] {
        guard let elements = try optionalArray(key) else { return [] }
        var result: [Int64] = []
        for element in elements {
            guard case .int(let integer) = element else { throw wrongType(key, "an array of integers") }
            result.append(integer)
        }
        return result
    }

    package func stringArray(_ key: String) throws(SluiceError) -> [String] {
        guard let elements = try optionalArray(key) else { return [] }
        var result: [String] = []
        for element in elements {
            guard case .string(let text) = element else { throw wrongType(key, "an array of strings") }
            result.append(text)
        }
        return result
    }
}
