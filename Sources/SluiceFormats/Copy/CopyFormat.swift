/// How COPY reads and writes rows: PostgreSQL's text and CSV formats (the COPY reference page,
/// "File Formats"), with the options that shape them.
///
/// Invariants (checked where options are read): `delimiter` is not a newline, a carriage return
/// or a backslash in text, and differs from `quote` in CSV; `null` holds no newline.
package struct CopyFormat: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Tab-separated, `\N` for NULL, backslash escapes.
        case text
        /// Comma-separated, `"` quotes, unquoted empty for NULL.
        case csv
    }

    /// What the first line of the data is.
    package enum Header: Sendable, Equatable {
        case absent
        /// A line of column names: skipped on input, written on output.
        case present
        /// A line of column names that must equal the copied columns' names (input only).
        case match
    }

    package var kind: Kind
    package var delimiter: UInt8
    /// The text that stands for NULL.
    package var null: [UInt8]
    package var header: Header = .absent
    /// CSV's quote character.
    package var quote: UInt8 = UInt8(ascii: "\"")
    /// CSV's escape character inside quotes (the quote itself by default: `""`).
    package var escape: UInt8 = UInt8(ascii: "\"")
    /// Positions in the copied column list whose quoted null text also reads as NULL (FORCE_NULL).
    package var forceNull: Set<Int> = []
    /// Positions whose unquoted null text reads as the text itself (FORCE_NOT_NULL).
    package var forceNotNull: Set<Int> = []
    /// Positions whose non-null values are always quoted on output (FORCE_QUOTE).
    package var forceQuote: Set<Int> = []

    /// The defaults of `kind`.
    package init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .text:
            delimiter = UInt8(ascii: "\t")
            null = Array(#"\N"#.utf8)
        case .csv:
            delimiter = UInt8(ascii: ",")
            null = []
        }
    }
}
