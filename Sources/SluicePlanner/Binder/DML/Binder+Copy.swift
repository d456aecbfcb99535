import SluiceCore
import SluiceSQL

extension Binder {
    /// `COPY … FROM STDIN` and `COPY … TO STDOUT`. Files and programs on the server are refused:
    /// a client copies files through STDIN and STDOUT (psql's `\copy`).
    mutating func bindCopy(_ copy: Copy, position: Int?) throws(SluiceError) -> PlannedStatement {
        switch copy.endpoint {
        case .client:
            break
        case .file:
            throw SluiceError(
                .featureNotSupported, "COPY \(copy.isFrom ? "from" : "to") a file is not supported", hint: copy.isFrom
                    ? "Use COPY … FROM STDIN, or psql's \\copy, which sends a client-side file."
                    : "Use COPY … TO STDOUT, or psql's \\copy, which writes a client-side file.", position: position)
        case .program:
            throw SluiceError(.featureNotSupported, "COPY \(copy.isFrom ? "from" : "to") a program is not supported", position: position)
        }
        switch copy.relation {
        case .query(let query):
            let bound = try bindQuery(query)
            return .copyTo(bound.plan, columns: bound.outputColumns, options: copy.options, relationName: nil)
        case .table(let name, let columnNames):
            let relation = try relation(named: name, position: position)
            let columns = try columnIndices(columnNames, of: relation)
            if copy.isFrom {
                guard relation.kind == .table else {
                    throw SluiceError(.wrongObjectType, "cannot copy to \(relation.kind.rawValue) \"\(relation.name)\"")
                }
                try requirePrivilege(.insert, on: relation)
                return .copyFrom(table: relation, columns: columns, options: copy.options)
            }
            switch relation.kind {
            case .table, .materializedView:
                break
            case .view:
                throw SluiceError(
                    .wrongObjectType, "cannot copy from view \"\(relation.name)\"", hint: "Try the COPY (SELECT ...) TO variant.")
            case .source, .sink:
                throw SluiceError(.wrongObjectType, "cannot copy from \(relation.kind.rawValue) \"\(relation.name)\"")
            }
            // The table's rows are a query's: `SELECT columns FROM table`.
            let list = columns.map { quoteIdentifierIfNeeded(relation.columns[$0].name) }.joined(separator: ", ")
            let target = ObjectName([relation.schema, relation.name]).description
            guard case .query(let query)? = try SQLParser.parse("SELECT \(list) FROM \(target)").first?.kind else {
                throw SluiceError.internalError("the query of COPY \(relation.name) TO did not parse as a query")
            }
            let bound = try bindQuery(query)
            return .copyTo(bound.plan, columns: bound.outputColumns, options: copy.options, relationName: relation.name)
        }
    }

    /// The table column indices a COPY column list names, in its order; all columns when empty.
    private func columnIndices(_ names: [String], of relation: RelationDefinition) throws(SluiceError) -> [Int] {
        if names.isEmpty { return Array(relation.columns.indices) }
        var indices: [Int] = []
        for name in names {
            guard let index = relation.columnIndex(named: name) else {
                throw SluiceError(.undefinedColumn, "column \"\(name)\" of relation \"\(relation.name)\" does not exist")
            }
            if indices.contains(index) { throw SluiceError(.duplicateColumn, "column \"\(name)\" specified more than once") }
            indices.append(index)
        }
        return indices
    }
}
