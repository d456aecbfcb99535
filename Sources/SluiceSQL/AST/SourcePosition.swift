/// Where a node starts in the SQL text: the 1-based character position Postgres reports.
///
/// Positions are metadata: two positions always compare equal and hash alike, so AST nodes are
/// equal when their structure is equal, wherever they were written. This lets a binder match
/// `GROUP BY a + 1` against `SELECT a + 1`, and round-trip tests compare reprinted text.
package struct SourcePosition: Hashable, Sendable, CustomStringConvertible {
    /// The 1-based character position; 0 when the node was built rather than parsed.
    package var value: Int

    package init(_ value: Int) {
        self.value = value
    }

    /// A position for nodes built by code rather than parsed.
    package static let none = SourcePosition(0)

    package static func == (lhs: SourcePosition, rhs: SourcePosition) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}

    package var description: String { "\(value)" }

    /// The position to attach to a ``SluiceCore/SluiceError``, or nil for built nodes.
    package var errorPosition: Int? { value > 0 ? value : nil }
}
