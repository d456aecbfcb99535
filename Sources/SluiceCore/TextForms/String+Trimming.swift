extension String {
    /// This string without leading and trailing ASCII white space (space, tab, newline,
    /// vertical tab, form feed, carriage return — C's `isspace`, which Postgres input uses).
    package var trimmingSpaces: String {
        let isSpace: (Unicode.Scalar) -> Bool = { $0 == " " || ("\t" ... "\r").contains($0) }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first ... last])
    }
}
