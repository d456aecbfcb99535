import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// CREATE SCHEMA, DROP SCHEMA, and the checks of a new relation's name in its schema.

extension Binder {
    /// `CREATE SCHEMA [IF NOT EXISTS] name`.
    func bindCreateSchema(_ name: ObjectName, ifNotExists: Bool) throws(SluiceError) -> PlannedStatement {
        if catalog.hasSchema(name.name) {
            if ifNotExists { return .nothing(tag: "CREATE_SCHEMA", notice: "schema \"\(name.name)\" already exists, skipping") }
            throw SluiceError(.duplicateSchema, "schema \"\(name.name)\" already exists")
        }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .createSchema(name.name, oid: catalog.allocateID(), owner: actor.oid)
    }

    /// `DROP SCHEMA [IF EXISTS] name, … [CASCADE]`: without CASCADE a schema holding relations
    /// is refused (2BP01); with it they go too, and what depends on them.
    func bindDropSchema(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        var names: [String] = []
        var doomed: [RelationDefinition] = []
        var notices: [String] = []
        for name in drop.names {
            let schema = name.name
            if ["pg_catalog", "information_schema", "rw_catalog"].contains(schema) {
                throw SluiceError(.dependentObjectsStillExist, "cannot drop schema \(schema) because it is required by the database system")
            }
            guard catalog.hasSchema(schema) else {
                if drop.ifExists {
                    notices.append("schema \"\(schema)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.invalidSchemaName, "schema \"\(schema)\" does not exist")
            }
            let actor = try actingRole()
            if !actor.superuser, catalog.schemaAccess(schema).owner != actor.oid {
                throw SluiceError(.insufficientPrivilege, "must be owner of schema \(schema)")
            }
            let members = catalog.relations.filter { $0.schema == schema }
            let functions = catalog.functions.filter { $0.schema == schema }
            if (!members.isEmpty || !functions.isEmpty) && !drop.cascade {
                let lines =
                    members.map { "\($0.kind.rawValue) \(schema).\($0.name) depends on schema \(schema)" }
                    + functions.map { "function \(schema).\($0.signature) depends on schema \(schema)" }
                throw SluiceError(
                    .dependentObjectsStillExist, "cannot drop schema \(schema) because other objects depend on it",
                    detail: lines.joined(separator: "\n"), hint: "Use DROP ... CASCADE to drop the dependent objects too.")
            }
            // Its functions go (the server drops them with the schema), and what uses them.
            if !functions.isEmpty {
                for relation in try functionDrop(functions, cascade: true).relations where !doomed.contains(where: { $0.id == relation.id }) {
                    doomed.append(relation)
                }
            }
            for member in members {
                for dependent in allDependents(of: member.id).reversed() where !doomed.contains(where: { $0.id == dependent.id }) {
                    doomed.append(dependent)
                }
                if !doomed.contains(where: { $0.id == member.id }) { doomed.append(member) }
            }
            names.append(schema)
        }
        if names.isEmpty { return .nothing(tag: "DROP_SCHEMA", notice: notices.first) }
        return .dropSchemas(names, relations: doomed)
    }

    /// Fails with 3F000 unless schema `name` exists (for a new relation in it).
    func checkSchemaExists(_ name: String) throws(SluiceError) {
        guard catalog.hasSchema(name) else { throw SluiceError(.invalidSchemaName, "schema \"\(name)\" does not exist") }
    }

    /// For a CREATE of relation `name` that already exists: the statement that only notices
    /// (IF NOT EXISTS), or the error. Nil when the name is free.
    func existingRelation(_ name: String, schema: String, ifNotExists: Bool, tag: String) throws(SluiceError) -> PlannedStatement? {
        try checkSchemaExists(schema)
        try requireSchemaPrivilege(.create, on: schema)
        guard catalog.relation(named: name, schema: schema) != nil else { return nil }
        guard ifNotExists else { throw SluiceError(.duplicateTable, "relation \"\(name)\" already exists") }
        return .nothing(tag: tag, notice: "relation \"\(name)\" already exists, skipping")
    }
}
