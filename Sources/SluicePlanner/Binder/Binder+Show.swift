import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// SHOW, SHOW ALL, SHOW TABLES …, SHOW CREATE and DESCRIBE.

extension Binder {
    mutating func bindShow(_ show: Show) throws(SluiceError) -> PlannedStatement {
        switch show {
        case .list(.functions, _, let like):
            return showFunctions(like: like)
        case .list(let listing, _, _):
            return .utility(.showList(kind: listing.rawValue.lowercased()))
        case .columns(let name):
            let relation = try relation(named: name, position: nil)
            try requireVisible(relation)
            return .utility(.describe(relation))
        case .create(.function, let name):
            let schemas = name.qualifier.last.map { [$0] } ?? (session.schema == "public" ? ["public"] : [session.schema, "public"])
            let catalog = catalog
            guard let function = schemas.compactMap({ catalog.functions(named: name.name, schema: $0).first }).first else {
                throw SluiceError(.undefinedFunction, "function \"\(name.description)\" does not exist")
            }
            let plan = BatchPlan.values(
                rows: [[.literal(.string(function.name), .varchar), .literal(.string(function.definition), .varchar)]], types: [.varchar, .varchar])
            return .query(plan, columns: [OutputColumn(name: "Name", type: .varchar), OutputColumn(name: "Create Sql", type: .varchar)])
        case .create(_, let name):
            let relation = try relation(named: name, position: nil)
            try requireVisible(relation)
            let plan = BatchPlan.values(
                rows: [[.literal(.string(relation.name), .varchar), .literal(.string(relation.maskedDefinition), .varchar)]], types: [.varchar, .varchar])
            return .query(plan, columns: [OutputColumn(name: "Name", type: .varchar), OutputColumn(name: "Create Sql", type: .varchar)])
        case .all:
            return .utility(.showAll)
        case .variable(let name):
            return .utility(.show(name: name.lowercased()))
        }
    }

    /// `SHOW FUNCTIONS [LIKE 'pattern']`, as RisingWave shows them: the SQL functions of the
    /// session's schema.
    private func showFunctions(like: String?) -> PlannedStatement {
        var functions = catalog.functions.filter { $0.schema == session.schema }
        if let like { functions = functions.filter { Self.matchesLike($0.name, like) } }
        let rows: [[ScalarExpr]] = functions.map { function in
            [function.name, function.argumentsText, function.returnType.sqlName, "sql", ""].map { ScalarExpr.literal(.string($0), .varchar) }
        }
        let names = ["Name", "Arguments", "Return Type", "Language", "Link"]
        return .query(
            .values(rows: rows, types: Array(repeating: .varchar, count: names.count)), columns: names.map { OutputColumn(name: $0, type: .varchar) })
    }

    /// Whether `text` matches LIKE `pattern` (`%`, `_`; no escapes).
    static func matchesLike(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text)
        let pattern = Array(pattern)
        func match(_ textIndex: Int, _ patternIndex: Int) -> Bool {
            guard patternIndex < pattern.count else { return textIndex == text.count }
            switch pattern[patternIndex] {
            case "%": return (textIndex...text.count).contains { match($0, patternIndex + 1) }
            case "_": return textIndex < text.count && match(textIndex + 1, patternIndex + 1)
            case let character: return textIndex < text.count && text[textIndex] == character && match(textIndex + 1, patternIndex + 1)
            }
        }
        return match(0, 0)
    }
}
