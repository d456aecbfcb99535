import NIOCore
import SluiceCore

/// The severity of an ErrorResponse or NoticeResponse (the `S` and `V` fields).
package enum PGSeverity: String, Sendable, Equatable {
    case error = "ERROR"
    /// Ends the session; the server closes the connection after sending it.
    case fatal = "FATAL"
    case warning = "WARNING"
    case notice = "NOTICE"

    /// The notice severity Postgres uses for `code`: WARNING for class 01, NOTICE otherwise.
    package static func notice(for code: SQLState) -> PGSeverity {
        code.code.hasPrefix("01") ? .warning : .notice
    }
}

/// The fields of ErrorResponse (`E`) and NoticeResponse (`N`) ("Error and Notice Message Fields").
package struct PGErrorFields: Sendable, Equatable {
    package var severity: PGSeverity
    package var error: SluiceError

    package init(_ severity: PGSeverity, _ error: SluiceError) {
        self.severity = severity
        self.error = error
    }

    func encode(into buffer: inout ByteBuffer) {
        func field(_ code: Character, _ value: String) {
            buffer.writeInteger(code.asciiValue!)
            buffer.writeCString(value)
        }
        field("S", severity.rawValue)
        field("V", severity.rawValue)
        field("C", error.code.code)
        field("M", error.message)
        if let detail = error.detail { field("D", detail) }
        if let hint = error.hint { field("H", hint) }
        if let position = error.position { field("P", String(position)) }
        if let context = error.context { field("W", context) }
        buffer.writeInteger(UInt8(0))
    }
}
