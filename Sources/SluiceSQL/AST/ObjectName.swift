/// A possibly qualified name such as `pg_catalog.pg_class` or `kafka_catalog.db.payments`.
///
/// Parts are as the user meant them: unquoted parts folded to lower case, quoted parts verbatim.
package struct ObjectName: Hashable, Sendable, CustomStringConvertible {
    /// The parts, outermost first; never empty when parsed.
    package var parts: [String]

    package init(_ parts: [String]) {
        self.parts = parts
    }

    package init(_ name: String) {
        self.parts = [name]
    }

    /// The last part: the object's own name.
    package var name: String { parts.last ?? "" }

    /// The parts before the last: schema, or catalog and schema.
    package var qualifier: [String] { Array(parts.dropLast()) }

    package var description: String { parts.map(quoteIdentifierIfNeeded).joined(separator: ".") }
}

/// An alias for a table reference: `AS t (a, b)`.
package struct TableAlias: Hashable, Sendable, CustomStringConvertible {
    package var name: String
    /// Column aliases; empty when none were given.
    package var columns: [String]

    package init(name: String, columns: [String] = []) {
        self.name = name
        self.columns = columns
    }

    package var description: String {
        var text = "AS \(quoteIdentifierIfNeeded(name))"
        if !columns.isEmpty { text += " (\(columns.map(quoteIdentifierIfNeeded).joined(separator: ", ")))" }
        return text
    }
}

/// The identifier as SQL text: bare when it reads back the same, `"quoted"` otherwise.
package func quoteIdentifierIfNeeded(_ identifier: String) -> String {
    var isPlain = !identifier.isEmpty
    for (offset, byte) in identifier.utf8.enumerated() {
        let isLower = byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
        let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        if !(isLower || byte == UInt8(ascii: "_") || (offset > 0 && (isDigit || byte == UInt8(ascii: "$")))) {
            isPlain = false
            break
        }
    }
    if isPlain && !Keywords.quotedWhenPrinted.contains(identifier) { return identifier }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// The string as a SQL constant `'…'`, or `E'…'` when it holds control characters.
package func quoteStringLiteral(_ value: String) -> String {
    "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
}

extension String {
    func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
