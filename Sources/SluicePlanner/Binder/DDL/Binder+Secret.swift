import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    /// `CREATE SECRET [IF NOT EXISTS] name [WITH (backend = 'meta')] AS 'value'`: the secrets are
    /// kept with the catalog (RisingWave's `meta` backend, the only one).
    func bindCreateSecret(_ name: String, ifNotExists: Bool, options: [WithOption], value: String) throws(SluiceError) -> PlannedStatement {
        for option in options {
            guard option.key.lowercased() == "backend" else {
                throw SluiceError(.syntaxError, "unknown option \"\(option.key)\" for CREATE SECRET", hint: "CREATE SECRET takes backend = 'meta'.")
            }
            guard option.value.text.lowercased() == "meta" else {
                throw SluiceError(.featureNotSupported, "secret backend '\(option.value.text)' is not supported", hint: "Use backend = 'meta': the secret is kept with the catalog.")
            }
        }
        if catalog.secret(named: name) != nil {
            if ifNotExists { return .nothing(tag: "CREATE_SECRET", notice: "secret \"\(name)\" already exists, skipping") }
            throw SluiceError(.duplicateObject, "secret \"\(name)\" already exists")
        }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .createSecret(name, value: value)
    }

    /// `DROP SECRET [IF EXISTS] name, …`: refused while a table's VALIDATE names it.
    func bindDropSecrets(_ drop: Drop) throws(SluiceError) -> PlannedStatement {
        var names: [String] = []
        for name in drop.names {
            guard catalog.secret(named: name.name) != nil else {
                if drop.ifExists { continue }
                throw SluiceError(.undefinedObject, "secret \"\(name.name)\" does not exist")
            }
            if let user = catalog.relations(usingSecret: name.name).first {
                throw SluiceError(.dependentObjectsStillExist, "cannot drop secret \(name.name) because \(user.kind.rawValue) \(user.name) uses it", hint: "Drop the \(user.kind.rawValue) first.")
            }
            names.append(name.name)
        }
        guard !names.isEmpty else { return .nothing(tag: "DROP_SECRET", notice: nil) }
        let actor = try actingRole()
        if !catalog.databaseAccess.allows(.create, to: actor, through: catalog.privilegeRoles(of: actor)) {
            throw SluiceError(.insufficientPrivilege, "permission denied for database \(session.database)")
        }
        return .dropSecrets(names)
    }
}
