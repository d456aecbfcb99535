import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// SHOW, SHOW ALL, SHOW TABLES …, SHOW CREATE and DESCRIBE.

extension Binder {
    mutating func bindShow(_ show: Show) throws(SluiceError) -> PlannedStatement {
        switch show {
        case .list(let listing, _, _):
            return .utility(.showList(kind: listing.rawValue.lowercased()))
        case .columns(let name):
            let relation = try relation(named: name, position: nil)
            try requireVisible(relation)
            return .utility(.describe(relation))
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
}
