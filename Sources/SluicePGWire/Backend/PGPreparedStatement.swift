import SluiceCore

/// A statement the session has parsed and planned, ready to execute with parameters.
package struct PGPreparedStatement: Sendable, Equatable {
    /// An id the session chooses to find its own state for the statement.
    package var id: Int
    /// The text of this one statement.
    package var sql: String
    /// The type of each parameter `$1`, `$2`, …; the count is the number of parameters Bind must supply.
    package var parameterTypes: [DataType]
    /// The columns of the rows the statement returns; nil when it returns no rows (NoData).
    package var resultColumns: [PGColumn]?

    package init(id: Int, sql: String, parameterTypes: [DataType] = [], resultColumns: [PGColumn]? = nil) {
        self.id = id
        self.sql = sql
        self.parameterTypes = parameterTypes
        self.resultColumns = resultColumns
    }
}

/// One column of a result as RowDescription describes it.
package struct PGColumn: Sendable, Equatable {
    package var name: String
    package var type: DataType
    /// The OID of the table the column comes from, or 0.
    package var tableOID: Int32 = 0
    /// The attribute number of the column in that table, or 0.
    package var columnNumber: Int16 = 0
    /// The type modifier (`atttypmod`), -1 when none.
    package var typeModifier: Int32 = -1
    /// The type OID RowDescription gives, when not `type`'s.
    package var typeOID: Int32?

    package init(name: String, type: DataType, tableOID: Int32 = 0, columnNumber: Int16 = 0, typeModifier: Int32 = -1) {
        self.name = name
        self.type = type
        self.tableOID = tableOID
        self.columnNumber = columnNumber
        self.typeModifier = typeModifier
    }
}
