import SluiceCore
extension Statement: CustomStringConvertible {
    /// The statement as SQL that parses back to an equal statement.
    package var description: String { kind.description }
}

extension Statement.Kind: CustomStringConvertible {
    package var description: String {
        switch self {
        case .query(let query):
            return query.description
        case .insert(let insert):
            var text = "INSERT INTO \(insert.table)"
            if !insert.columns.isEmpty { text += " (" + insert.columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")" }
            text += insert.source.map { " \($0)" } ?? " DEFAULT VALUES"
            return text + returningText(insert.returning)
        case .update(let update):
            var text = "UPDATE \(update.table)" + (update.alias.map { " AS \(quoteIdentifierIfNeeded($0))" } ?? "")
            text += " SET " + update.assignments.map { "\(quoteIdentifierIfNeeded($0.column)) = \($0.value)" }.joined(separator: ", ")
            if !update.from.isEmpty { text += " FROM " + update.from.map(\.description).joined(separator: ", ") }
            if let filter = update.filter { text += " WHERE \(filter)" }
            return text + returningText(update.returning)
        case .delete(let delete):
            var text = "DELETE FROM \(delete.table)" + (delete.alias.map { " AS \(quoteIdentifierIfNeeded($0))" } ?? "")
            if !delete.using.isEmpty { text += " USING " + delete.using.map(\.description).joined(separator: ", ") }
            if let filter = delete.filter { text += " WHERE \(filter)" }
            return text + returningText(delete.returning)
        case .createTable(let table):
            var text = "CREATE TABLE " + (table.ifNotExists ? "IF NOT EXISTS " : "") + table.name.description
            let elements = table.takesUpstreamColumns ? "*" : elementsText(table.columns, table.constraints, table.watermarks)
            if !elements.isEmpty || table.query == nil { text += " (\(elements))" }
            text += includesText(table.includes)
            if table.isAppendOnly { text += " APPEND ONLY" }
            switch table.onConflict {
            case .overwrite: text += " ON CONFLICT DO UPDATE FULL"
            case .ignore: text += " ON CONFLICT DO NOTHING"
            case .updateIfNotNull: text += " ON CONFLICT DO UPDATE IF NOT NULL"
            case nil: break
            }
            if let version = table.versionColumn { text += " WITH VERSION COLUMN(\(quoteIdentifierIfNeeded(version)))" }
            text += optionsText(table.options, prefix: " WITH ")
            if let format = table.format { text += " \(format)" }
            if let validate = table.validate {
                text += " VALIDATE " + (validate.secret.map { "SECRET \(quoteIdentifierIfNeeded($0)) " } ?? "") + "AS \(validate.expression)"
            }
            if let query = table.query { text += " AS \(query)" }
            if let cdc = table.cdcTable { text += " FROM \(cdc.source) TABLE \(quoteStringLiteral(cdc.upstream))" }
            return text
        case .createView(let view):
            var text = "CREATE " + (view.orReplace ? "OR REPLACE " : "") + (view.isMaterialized ? "MATERIALIZED " : "") + "VIEW "
            text += (view.ifNotExists ? "IF NOT EXISTS " : "") + view.name.description
            if !view.columns.isEmpty { text += " (" + view.columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")" }
            text += optionsText(view.options, prefix: " WITH ")
            text += " AS \(view.query)"
            if view.emitOnWindowClose { text += " EMIT ON WINDOW CLOSE" }
            return text
        case .createSource(let source):
            var text = "CREATE SOURCE " + (source.ifNotExists ? "IF NOT EXISTS " : "") + source.name.description
            let elements = elementsText(source.columns, source.constraints, source.watermarks)
            if !elements.isEmpty { text += " (\(elements))" }
            text += includesText(source.includes)
            text += optionsText(source.options, prefix: " WITH ", always: true)
            if let format = source.format { text += " \(format)" }
            if source.forAllTables { text += " FOR ALL TABLES" }
            return text
        case .createSink(let sink):
            var text = "CREATE SINK " + (sink.ifNotExists ? "IF NOT EXISTS " : "") + sink.name.description
            switch sink.input {
            case .relation(let name): text += " FROM \(name)"
            case .query(let query): text += " AS \(query)"
            }
            text += optionsText(sink.options, prefix: " WITH ")
            if let format = sink.format { text += " \(format)" }
            return text
        case .createIndex(let index):
            var text = "CREATE " + (index.isUnique ? "UNIQUE " : "") + "INDEX " + (index.ifNotExists ? "IF NOT EXISTS " : "")
            if let name = index.name { text += "\(name) " }
            text += "ON \(index.table) (" + index.keys.map(\.description).joined(separator: ", ") + ")"
            if !index.include.isEmpty { text += " INCLUDE (" + index.include.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")" }
            if !index.distributedBy.isEmpty {
                text += " DISTRIBUTED BY (" + index.distributedBy.map(\.description).joined(separator: ", ") + ")"
            }
            return text
        case .createSchema(let name, let ifNotExists):
            return "CREATE SCHEMA " + (ifNotExists ? "IF NOT EXISTS " : "") + name.description
        case .createDatabase(let name, let ifNotExists):
            return "CREATE DATABASE " + (ifNotExists ? "IF NOT EXISTS " : "") + name.description
        case .drop(let drop):
            return "DROP \(drop.objectType.rawValue) " + (drop.ifExists ? "IF EXISTS " : "")
                + drop.names.map(\.description).joined(separator: ", ") + (drop.cascade ? " CASCADE" : "")
        case .show(let show):
            return "SHOW " + show.description
        case .setVariable(let set):
            let value: String
            switch set.value {
            case .default: value = "DEFAULT"
            case .values(let values): value = values.map(quoteStringLiteral).joined(separator: ", ")
            }
            return "SET " + (set.isLocal ? "LOCAL " : "") + quoteVariableName(set.name) + " = " + value
        case .setTransaction(let modes):
            return "SET TRANSACTION " + modes.map { $0.uppercased() }.joined(separator: ", ")
        case .reset(let name):
            return "RESET " + (name == "timezone" ? "TIME ZONE" : quoteVariableName(name))
        case .describe(let name):
            return "DESCRIBE \(name)"
        case .explain(let explain):
            var text = "EXPLAIN "
            if !explain.options.isEmpty {
                text += "(" + explain.options.map { option in
                    option.value.map { "\(option.name) \(quoteStringLiteral($0))" } ?? option.name
                }.joined(separator: ", ") + ") "
            }
            if explain.isAnalyze { text += "ANALYZE " }
            if explain.isVerbose { text += "VERBOSE " }
            return text + explain.statement.description
        case .flush:
            return "FLUSH"
        case .checkpoint:
            return "CHECKPOINT"
        case .begin(let modes):
            return "BEGIN" + (modes.isEmpty ? "" : " " + modes.map { $0.uppercased() }.joined(separator: ", "))
        case .commit:
            return "COMMIT"
        case .rollback:
            return "ROLLBACK"
        case .savepoint(let action, let name):
            return "\(action.rawValue) \(quoteIdentifierIfNeeded(name))"
        case .discard(let target):
            return "DISCARD \(target.uppercased())"
        case .deallocate(let name):
            return "DEALLOCATE " + (name.map(quoteIdentifierIfNeeded) ?? "ALL")
        case .comment(let comment):
            return "COMMENT ON \(comment.objectType.rawValue) \(comment.name) IS " + (comment.text.map(quoteStringLiteral) ?? "NULL")
        case .alter(let objectType, let name):
            return "ALTER \(objectType)" + (name.map { " \($0)" } ?? "")
        case .createSecret(let name, let ifNotExists, let options, _):
            return "CREATE SECRET " + (ifNotExists ? "IF NOT EXISTS " : "") + name.description + optionsText(options, prefix: " WITH ")
                + " AS '\(SecretOptions.mask)'"
        case .createFunction(let create):
            return create.description
        case .dropFunction(let drop):
            return drop.description
        case .createRole(let create):
            return "CREATE \(create.isUser ? "USER" : "ROLE") \(quoteIdentifierIfNeeded(create.name))" + roleOptionsText(create.options)
        case .alterRole(let alter):
            if let renameTo = alter.renameTo {
                return "ALTER ROLE \(quoteIdentifierIfNeeded(alter.name)) RENAME TO \(quoteIdentifierIfNeeded(renameTo))"
            }
            return "ALTER ROLE \(quoteIdentifierIfNeeded(alter.name))" + roleOptionsText(alter.options)
        case .dropRoles(let names, let ifExists):
            return "DROP ROLE " + (ifExists ? "IF EXISTS " : "") + names.map(quoteIdentifierIfNeeded).joined(separator: ", ")
        case .copy(let copy):
            return copy.description
        case .grant(let grant):
            return grant.description
        case .grantRole(let grant):
            return grant.description
        case .catalog(let statement):
            switch statement {
            case .create(let name, let ifNotExists, let options):
                return "CREATE CATALOG " + (ifNotExists ? "IF NOT EXISTS " : "") + quoteIdentifierIfNeeded(name) + optionsText(options, prefix: " WITH ")
            case .createDatabase(let name, let ifNotExists): return "CREATE DATABASE " + (ifNotExists ? "IF NOT EXISTS " : "") + name.description
            case .drop(let name, let ifExists): return "DROP CATALOG " + (ifExists ? "IF EXISTS " : "") + quoteIdentifierIfNeeded(name)
            case .useCatalog(let name): return "USE CATALOG \(quoteIdentifierIfNeeded(name))"
            case .useDatabase(let name): return "USE \(name)"
            case .showCatalogs: return "SHOW CATALOGS"
            case .showCurrentCatalog: return "SHOW CURRENT CATALOG"
            case .showCurrentDatabase: return "SHOW CURRENT DATABASE"
            case .showJobs: return "SHOW JOBS"
            case .stopJob(let job, let savepoint, let drain):
                return "STOP JOB \(quoteStringLiteral(job))" + (savepoint ? " WITH SAVEPOINT" : "") + (drain ? " WITH DRAIN" : "")
            }
        }
    }
}

extension GrantRole: CustomStringConvertible {
    package var description: String {
        var text = isRevoke ? "REVOKE " : "GRANT "
        if isRevoke && adminOption { text += "ADMIN OPTION FOR " }
        text += roles.map(quoteIdentifierIfNeeded).joined(separator: ", ")
        text += (isRevoke ? " FROM " : " TO ") + grantees.map { ["current_user", "session_user", "current_role"].contains($0) ? $0.uppercased() : quoteIdentifierIfNeeded($0) }.joined(separator: ", ")
        if !isRevoke && adminOption { text += " WITH ADMIN OPTION" }
        if let grantedBy { text += " GRANTED BY \(quoteIdentifierIfNeeded(grantedBy))" }
        if isRevoke && cascade { text += " CASCADE" }
        return text
    }
}

extension Grant: CustomStringConvertible {
    package var description: String {
        var text = isRevoke ? "REVOKE " : "GRANT "
        if isRevoke && grantOption { text += "GRANT OPTION FOR " }
        text += privileges.map { $0.map(\.rawValue).joined(separator: ", ") } ?? "ALL PRIVILEGES"
        text += " ON "
        let names = { (names: [ObjectName]) in names.map(\.description).joined(separator: ", ") }
        switch target {
        case .relations(let kind, let list): text += (kind.map { "\($0.rawValue) " } ?? "") + names(list)
        case .allInSchemas(let kind, let schemas):
            let plural = kind == .materializedView ? "MATERIALIZED VIEWS" : kind.rawValue + "S"
            text += "ALL \(plural) IN SCHEMA " + names(schemas)
        case .schemas(let list): text += "SCHEMA " + names(list)
        case .databases(let list): text += "DATABASE " + names(list)
        }
        text += (isRevoke ? " FROM " : " TO ") + grantees.map { ["public", "current_user", "session_user", "current_role"].contains($0) ? $0.uppercased() : quoteIdentifierIfNeeded($0) }.joined(separator: ", ")
        if !isRevoke && grantOption { text += " WITH GRANT OPTION" }
        if let grantedBy { text += " GRANTED BY \(quoteIdentifierIfNeeded(grantedBy))" }
        if isRevoke && cascade { text += " CASCADE" }
        return text
    }
}

/// Role options as SQL; a password is never printed (statements are logged and shown).
private func roleOptionsText(_ options: [RoleOption]) -> String {
    options.map { option -> String in
        switch option {
        case .password(let password): " PASSWORD " + (password == nil ? "NULL" : "'********'")
        case .superuser(let on): on ? " SUPERUSER" : " NOSUPERUSER"
        case .createDB(let on): on ? " CREATEDB" : " NOCREATEDB"
        case .createRole(let on): on ? " CREATEROLE" : " NOCREATEROLE"
        case .login(let on): on ? " LOGIN" : " NOLOGIN"
        case .inherit(let on): on ? " INHERIT" : " NOINHERIT"
        case .replication(let on): on ? " REPLICATION" : " NOREPLICATION"
        case .bypassRLS(let on): on ? " BYPASSRLS" : " NOBYPASSRLS"
        case .connectionLimit(let limit): " CONNECTION LIMIT \(limit)"
        case .validUntil(let text): " VALID UNTIL " + quoteStringLiteral(text)
        }
    }.joined()
}

private func quoteVariableName(_ name: String) -> String {
    name.split(separator: ".", omittingEmptySubsequences: false).map { quoteIdentifierIfNeeded(String($0)) }.joined(separator: ".")
}

private func returningText(_ items: [SelectItem]) -> String {
    items.isEmpty ? "" : " RETURNING " + items.map(\.description).joined(separator: ", ")
}

private func optionsText(_ options: [WithOption], prefix: String, always: Bool = false) -> String {
    if options.isEmpty && !always { return "" }
    return prefix + "(" + options.map(\.description).joined(separator: ", ") + ")"
}

private func elementsText(_ columns: [ColumnDefinition], _ constraints: [TableConstraint], _ watermarks: [WatermarkDefinition]) -> String {
    var elements = columns.map(\.description)
    for constraint in constraints {
        switch constraint {
        case .primaryKey(let columns, let name):
            elements.append((name.map { "CONSTRAINT \(quoteIdentifierIfNeeded($0)) " } ?? "") + "PRIMARY KEY ("
                + columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")")
        case .unique(let columns, let name):
            elements.append((name.map { "CONSTRAINT \(quoteIdentifierIfNeeded($0)) " } ?? "") + "UNIQUE ("
                + columns.map(quoteIdentifierIfNeeded).joined(separator: ", ") + ")")
        }
    }
    for watermark in watermarks {
        elements.append("WATERMARK FOR \(quoteIdentifierIfNeeded(watermark.column)) AS \(watermark.expression)")
    }
    return elements.joined(separator: ", ")
}

extension ColumnDefinition: CustomStringConvertible {
    package var description: String {
        var text = quoteIdentifierIfNeeded(name) + (type.map { " \($0)" } ?? "")
        for constraint in constraints {
            switch constraint {
            case .notNull: text += " NOT NULL"
            case .null: text += " NULL"
            case .primaryKey: text += " PRIMARY KEY"
            case .unique: text += " UNIQUE"
            case .defaultValue(let value): text += " DEFAULT \(value.operandText)"
            case .generated(let expression): text += " AS \(expression.operandText)"
            case .metadata(let key): text += " METADATA" + (key.map { " FROM \(quoteStringLiteral($0))" } ?? "")
            }
        }
        return text
    }
}

extension WithOption: CustomStringConvertible {
    package var description: String {
        let keyText = key.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && quoteIdentifierIfNeeded(String(part)) == String(part)
        } ? key : quoteStringLiteral(key)
        return "\(keyText) = \(value)"
    }
}

extension OptionValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .string(let text): quoteStringLiteral(text)
        case .number(let text): text
        case .word(let word): word.split(separator: ".").map { quoteIdentifierIfNeeded(String($0)) }.joined(separator: ".")
        case .secret(let name): "SECRET \(name)"
        }
    }
}

extension FormatEncode: CustomStringConvertible {
    package var description: String {
        "FORMAT \(format) ENCODE \(encode)" + (options.isEmpty ? "" : " (" + options.map(\.description).joined(separator: ", ") + ")")
            + (keyEncode.map { " KEY ENCODE \($0)" } ?? "")
    }
}

extension Show: CustomStringConvertible {
    package var description: String {
        switch self {
        case .list(let listing, let schema, let like):
            return listing.rawValue + (schema.map { " FROM \($0)" } ?? "") + (like.map { " LIKE \(quoteStringLiteral($0))" } ?? "")
        case .columns(let name):
            return "COLUMNS FROM \(name)"
        case .create(let objectType, let name):
            return "CREATE \(objectType.rawValue) \(name)"
        case .all:
            return "ALL"
        case .variable(let name):
            switch name {
            case "transaction_isolation": return "TRANSACTION ISOLATION LEVEL"
            case "timezone": return "TIME ZONE"
            case "session_authorization": return "SESSION AUTHORIZATION"
            default: return quoteVariableName(name)
            }
        }
    }
}

/// ` INCLUDE kind [AS name]` for each of `includes`.
func includesText(_ includes: [IncludeColumn]) -> String {
    includes.map { " INCLUDE \($0.kind)" + ($0.alias.map { " AS \(quoteIdentifierIfNeeded($0))" } ?? "") }.joined()
}
