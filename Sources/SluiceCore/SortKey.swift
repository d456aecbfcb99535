/// One ORDER BY key over a column: of a plan's input, or of a table for an index's key.
package struct SortKey: Sendable, Hashable, Codable {
    package var column: Int
    package var descending: Bool
    /// Postgres's default: nulls sort as if larger than every value (last ascending, first descending).
    package var nullsFirst: Bool

    package init(column: Int, descending: Bool = false, nullsFirst: Bool? = nil) {
        self.column = column
        self.descending = descending
        self.nullsFirst = nullsFirst ?? descending
    }
}

/// One end of a key range: a value, and whether the range takes it.
package struct KeyBound: Sendable, Equatable {
    package var value: Value
    package var inclusive: Bool

    package init(value: Value, inclusive: Bool) {
        self.value = value
        self.inclusive = inclusive
    }
}
