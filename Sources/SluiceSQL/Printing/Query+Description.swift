extension Query: CustomStringConvertible {
    package var description: String {
        var text = ""
        if let with {
            text += "WITH " + (with.isRecursive ? "RECURSIVE " : "")
            text += with.tables.map { table in
                var entry = quoteIdentifierIfNeeded(table.alias.name)
                if !table.alias.columns.isEmpty {
                    entry += " (" + table.alias.columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")"
                }
                entry += " AS "
                if let isMaterialized = table.isMaterialized { entry += isMaterialized ? "MATERIALIZED " : "NOT MATERIALIZED " }
                return entry + "(\(table.query))"
            }.joined(separator: ", ")
            text += " "
        }
        text += body.description
        if !orderBy.isEmpty { text += " ORDER BY " + orderBy.map(\.description).joined(separator: ", ") }
        if let limit { text += " LIMIT \(limit)" }
        if let offset { text += " OFFSET \(offset)" }
        return text
    }
}

extension SetExpression: CustomStringConvertible {
    package var description: String {
        switch self {
        case .select(let select):
            return select.description
        case .values(let rows):
            return "VALUES " + rows.map { "(" + $0.map(\.description).joined(separator: ", ") + ")" }.joined(separator: ", ")
        case .query(let query):
            return "(\(query))"
        case .setOperation(let setOperator, let isAll, let left, let right):
            return "\(left.operandText) \(setOperator.rawValue)\(isAll ? " ALL" : "") \(right.operandText)"
        case .corresponding(let setOperator, let isAll, let by, let left, let right):
            let columns = by.map { " BY (" + $0.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")" } ?? ""
            return "\(left.operandText) \(setOperator.rawValue)\(isAll ? " ALL" : "") CORRESPONDING\(columns) \(right.operandText)"
        }
    }

    /// Operands of set operations are parenthesized when they are set operations themselves.
    private var operandText: String {
        if case .setOperation = self { return "(\(description))" }
        if case .corresponding = self { return "(\(description))" }
        return description
    }
}

extension Select: CustomStringConvertible {
    package var description: String {
        var text = "SELECT "
        switch distinct {
        case .distinct: text += "DISTINCT "
        case .on(let expressions): text += "DISTINCT ON (" + expressions.map(\.description).joined(separator: ", ") + ") "
        case nil: break
        }
        text += projection.map(\.description).joined(separator: ", ")
        if !from.isEmpty { text += " FROM " + from.map(\.description).joined(separator: ", ") }
        if let filter { text += " WHERE \(filter)" }
        if !groupBy.isEmpty { text += " GROUP BY " + groupBy.map(\.description).joined(separator: ", ") }
        if let having { text += " HAVING \(having)" }
        if !windows.isEmpty {
            text += " WINDOW " + windows.map { "\(quoteIdentifierIfNeeded($0.name)) AS (\($0.specification))" }.joined(separator: ", ")
        }
        return text
    }
}

extension SelectItem: CustomStringConvertible {
    package var description: String {
        switch self {
        case .expression(let expression, let alias):
            guard let alias else { return expression.description }
            return "\(expression) AS \(quoteIdentifierIfNeeded(alias))"
        case .wildcard(let qualifier, _):
            return qualifier.isEmpty ? "*" : qualifier.map(quoteIdentifierIfNeeded).joined(separator: ".") + ".*"
        }
    }
}

extension TableReference: CustomStringConvertible {
    package var description: String {
        switch self {
        case .table(let name, let alias, _):
            return name.description + (alias.map { " \($0)" } ?? "")
        case .processingTime(let name, let alias, _):
            return name.description + " FOR SYSTEM_TIME AS OF PROCTIME()" + (alias.map { " \($0)" } ?? "")
        case .subquery(let query, let alias, let isLateral, _):
            return (isLateral ? "LATERAL " : "") + "(\(query))" + (alias.map { " \($0)" } ?? "")
        case .function(let call, let alias, let isLateral, let withOrdinality, _):
            return (isLateral ? "LATERAL " : "") + call.description + (withOrdinality ? " WITH ORDINALITY" : "")
                + (alias.map { " \($0)" } ?? "")
        case .join(let join):
            var text = join.left.description + " "
            let right: String
            if case .join = join.right { right = "(\(join.right))" } else { right = join.right.description }
            if case .natural = join.condition { text += "NATURAL " }
            text += join.kind.rawValue + " " + right
            switch join.condition {
            case .on(let condition): text += " ON \(condition)"
            case .using(let columns): text += " USING (" + columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")"
            case .natural, .none: break
            }
            return text
        }
    }
}
