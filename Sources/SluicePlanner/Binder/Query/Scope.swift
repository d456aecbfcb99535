import SluiceCore

/// The columns visible at one point of a query: each with the relation alias that qualifies it.
struct Scope {
    struct Entry {
        var qualifier: String?
        var name: String
        var type: DataType
        /// Hidden columns (e.g. added for ORDER BY) are not expanded by `*`.
        var isHidden = false
        var tableID = 0
        var columnNumber = 0
        /// An untyped literal's column (`SELECT NULL`, `SELECT 'x'`), typed `varchar` for
        /// want of another: in a set operation it takes the other side's type instead.
        var isUntyped = false
        /// A system column of one of PostgreSQL's vector types (int2vector 22, oidvector 30),
        /// kept as an array: a query's result sends it as that type, its elements separated by
        /// spaces, as clients that read `pg_index` expect.
        var vectorOID: Int32?
        /// The one column of a function in FROM that returns a named column
        /// (`jsonb_array_elements(j) AS e` has a column `value`): the alias names it too, as
        /// PostgreSQL's whole-row reference to a one-column function does.
        var answersToQualifier = false
    }

    var entries: [Entry] = []

    var types: [DataType] { entries.map(\.type) }

    /// The index of the column `name` (qualified by `qualifier` if given). Throws 42703 when
    /// absent and 42702 when ambiguous.
    func resolve(_ qualifier: String?, _ name: String, position: Int?) throws(SluiceError) -> Int? {
        var found: Int?
        for (index, entry) in entries.enumerated() where entry.name == name {
            if let qualifier, entry.qualifier != qualifier { continue }
            if found != nil {
                throw SluiceError(.ambiguousColumn, "column reference \"\(name)\" is ambiguous", position: position)
            }
            found = index
        }
        if found == nil, qualifier == nil {
            found = entries.firstIndex { $0.answersToQualifier && $0.qualifier == name }
        }
        return found
    }

    func hasQualifier(_ qualifier: String) -> Bool {
        entries.contains { $0.qualifier == qualifier }
    }

    static func + (lhs: Scope, rhs: Scope) -> Scope {
        Scope(entries: lhs.entries + rhs.entries)
    }
}
