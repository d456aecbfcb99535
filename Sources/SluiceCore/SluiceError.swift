/// The one error type of Sluice: a SQLSTATE, a message in Postgres style, and optional context.
///
/// The primary message is lowercase with no final period; `detail` and `hint` are sentences.
/// `position` is a 1-based character offset into the SQL text the error refers to, as Postgres
/// reports it in the `P` field of an ErrorResponse.
package struct SluiceError: Error, Hashable, Sendable, CustomStringConvertible {
    package var code: SQLState
    package var message: String
    package var detail: String?
    package var hint: String?
    package var position: Int?
    /// Where the error happened, as Postgres's CONTEXT (the `W` field): e.g. the line of COPY
    /// input, `COPY t, line 3, column b: "x"`.
    package var context: String?

    package init(_ code: SQLState, _ message: String, detail: String? = nil, hint: String? = nil, position: Int? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
        self.hint = hint
        self.position = position
    }

    package var description: String {
        var text = "ERROR:  \(message) (SQLSTATE \(code))"
        if let detail { text += "\nDETAIL:  \(detail)" }
        if let hint { text += "\nHINT:  \(hint)" }
        if let context { text += "\nCONTEXT:  \(context)" }
        return text
    }

    /// An error that signals a bug in Sluice rather than a problem with the input.
    package static func internalError(_ message: String) -> SluiceError {
        SluiceError(.internalError, "internal error: \(message)", hint: "This is a bug in Sluice; please report it.")
    }

    /// The same error with a position attached, unless it already has one.
    package func at(position: Int?) -> SluiceError {
        var copy = self
        if copy.position == nil { copy.position = position }
        return copy
    }
}
