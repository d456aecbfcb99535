import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// DROP TABLE, VIEW, MATERIALIZED VIEW, SOURCE, SINK: the relations to drop, dependents first.

extension Binder {
    mutating func bindDrop(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        let kind: RelationKind
        switch drop.objectType {
        case .table: kind = .table
        case .view: kind = .view
        case .materializedView: kind = .materializedView
        case .source: kind = .source
        case .sink: kind = .sink
        case .schema:
            return try bindDropSchema(drop)
        case .index:
            return try bindDropIndex(drop)
        case .secret:
            return try bindDropSecrets(drop)
        case .database, .column, .function:
            if drop.ifExists { return .nothing(tag: "DROP_\(drop.objectType.rawValue.replacing(" ", with: "_"))", notice: nil) }
            throw SluiceError(.featureNotSupported, "DROP \(drop.objectType.rawValue) is not supported yet")
        }
        var doomed: [RelationDefinition] = []
        var notices: [String] = []
        for name in drop.names {
            let schema = name.qualifier.last ?? session.schema
            guard let relation = catalog.relation(named: name.name, schema: schema) else {
                if drop.ifExists {
                    notices.append("\(kind.rawValue) \"\(name.name)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.undefinedTable, "\(kind.rawValue) \"\(name.name)\" does not exist")
            }
            guard relation.kind == kind else {
                throw SluiceError(
                    .wrongObjectType, "\"\(relation.name)\" is not a \(kind.rawValue)",
                    hint: "Use DROP \(relation.kind.rawValue.uppercased()) to remove a \(relation.kind.rawValue).")
            }
            try requireOwner(relation)
            let dependents = allDependents(of: relation.id)
            if !dependents.isEmpty && !drop.cascade {
                // Name each dependent with the object it reads directly, as Postgres does.
                let names = dependents.map { dependent in
                    let direct = dependent.dependencies.compactMap { id in
                        id == relation.id ? relation : dependents.first { $0.id == id }
                    }.first ?? relation
                    return "\(dependent.kind.rawValue) \(dependent.name) depends on \(direct.kind.rawValue) \(direct.name)"
                }
                throw SluiceError(
                    .dependentObjectsStillExist, "cannot drop \(kind.rawValue) \(relation.name) because other objects depend on it",
                    detail: names.joined(separator: "\n"), hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            for dependent in dependents.reversed() where !doomed.contains(where: { $0.id == dependent.id }) { doomed.append(dependent) }
            if !doomed.contains(where: { $0.id == relation.id }) { doomed.append(relation) }
        }
        if doomed.isEmpty {
            return .nothing(tag: "DROP_\(drop.objectType.rawValue.replacing(" ", with: "_"))", notice: notices.first)
        }
        return .drop(doomed)
    }

    /// Every relation that depends on `id`, directly or not, nearest first.
    func allDependents(of id: Int) -> [RelationDefinition] {
        var result: [RelationDefinition] = []
        var queue = [id]
        while let next = queue.first {
            queue.removeFirst()
            for dependent in catalog.dependents(of: next) where !result.contains(where: { $0.id == dependent.id }) {
                result.append(dependent)
                queue.append(dependent.id)
            }
        }
        return result
    }
}
