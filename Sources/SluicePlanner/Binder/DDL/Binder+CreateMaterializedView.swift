import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    mutating func bindCreateMaterializedView(_ view: CreateView, sourceText: String) throws(SluiceError) -> PlannedStatement {
        let schema = view.name.qualifier.last ?? session.schema
        if let existing = try existingRelation(view.name.name, schema: schema, ifNotExists: view.ifNotExists, tag: "CREATE_MATERIALIZED_VIEW") {
            return existing
        }
        if view.orReplace { throw SluiceError(.featureNotSupported, "CREATE OR REPLACE MATERIALIZED VIEW is not supported") }
        if !view.options.isEmpty { throw SluiceError(.featureNotSupported, "WITH options on materialized views are not supported yet") }
        let bound = try bindQuery(view.query)
        var columns = bound.scope.entries.map { CatalogColumn(name: $0.name, type: $0.type == .unknown ? .varchar : $0.type) }
        if view.columns.count > columns.count {
            throw SluiceError(.syntaxError, "CREATE MATERIALIZED VIEW specifies more column names than columns")
        }
        for (index, name) in view.columns.enumerated() { columns[index].name = name }
        var seen = Set<String>()
        for column in columns where !seen.insert(column.name).inserted {
            throw SluiceError(
                .duplicateColumn, "column \"\(column.name)\" specified more than once",
                hint: "Give the columns distinct names with AS.")
        }
        var plan = bound.plan
        // Unknown-typed literals become text, as the catalog column says.
        if bound.scope.entries.contains(where: { $0.type == .unknown }) {
            plan = .project(
                input: plan,
                expressions: bound.scope.entries.enumerated().map { index, entry in
                    entry.type == .unknown ? .cast(.column(index, .unknown), .varchar) : .column(index, entry.type)
                })
        }
        let streamPlan = StreamPlan(MaterializeNode(
            input: try StreamPlanner.plan(plan, emitOnWindowClose: view.emitOnWindowClose), view: view.name.name, columns: columns.map(\.name)))
        var dependencies = streamPlan.scannedRelations
        for id in referencedRelations where !dependencies.contains(id) { dependencies.append(id) }
        var relation = RelationDefinition(
            id: catalog.allocateID(), schema: schema, name: view.name.name, kind: .materializedView, columns: columns,
            definition: sourceText, dependencies: dependencies)
        relation.planFingerprint = streamPlan.fingerprint
        relation.storedPlan = streamPlan.storedText
        return .createMaterializedView(relation, plan: streamPlan)
    }
}
