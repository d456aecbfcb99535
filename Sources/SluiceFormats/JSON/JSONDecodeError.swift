/// Why one JSON message could not become a row: a value, thrown with typed throws, carrying a
/// short human message and the byte offset in the message where the problem was found.
///
/// `description` reads `field "score": 3000000000 is out of range for integer (at byte 37)`.
package struct JSONDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The family of problem, for counting and tests.
    package enum Kind: String, Hashable, Sendable {
        /// Not JSON: a bad token, a missing `,`/`:`/`}`, trailing bytes, a bad number literal.
        case syntax
        /// The input ended inside a value.
        case truncated
        /// The document is JSON but not an object.
        case notAnObject
        /// Objects and arrays nest deeper than the decoder's limit.
        case tooDeep
        /// A string with invalid UTF-8, a control character, a bad escape or a lone surrogate.
        case invalidString
        /// A JSON value of a kind the column's type does not take (an array for an integer).
        case typeMismatch
        /// A number or date outside the column type's range.
        case outOfRange
        /// A value of the right kind whose text the column's type rejects (`"abc"` for a date).
        case invalidValue
    }

    package var kind: Kind
    /// The dotted path of the field whose value failed (`"location.lat"`, `"tags[2]"`), or nil
    /// for problems of the document itself.
    package var field: String?
    /// What went wrong, lowercase, no final period.
    package var problem: String
    /// The byte offset in the message.
    package var offset: Int

    package init(_ kind: Kind, _ problem: String, at offset: Int, field: String? = nil) {
        self.kind = kind
        self.problem = problem
        self.offset = offset
        self.field = field
    }

    /// The message without the offset: `field "score": 3000000000 is out of range for integer`.
    package var message: String {
        guard let field else { return problem }
        return "field \"\(field)\": \(problem)"
    }

    package var description: String { "\(message) (at byte \(offset))" }

    /// The same error seen from the enclosing struct field `name` (paths grow outward).
    func inField(_ name: String) -> JSONDecodeError {
        var error = self
        if let field {
            error.field = field.hasPrefix("[") ? name + field : name + "." + field
        } else {
            error.field = name
        }
        return error
    }

    /// The same error seen from element `index` of a list.
    func inElement(_ index: Int) -> JSONDecodeError {
        var error = self
        if let field {
            error.field = field.hasPrefix("[") ? "[\(index)]" + field : "[\(index)]." + field
        } else {
            error.field = "[\(index)]"
        }
        return error
    }
}
