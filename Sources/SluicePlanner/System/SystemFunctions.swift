import SluiceCore
import SluiceExpr
import SluiceSQL

/// Functions about the session and the catalog that clients call (`version()`,
/// `pg_table_is_visible`, `format_type`, …), answered from what the binder knows.
enum SystemFunctions {
    static let serverVersion = "PostgreSQL 13.14.0-Sluice-0.1.0 on x86_64-unknown-linux-gnu"

    static func bind(_ name: String, _ arguments: [ScalarExpr], catalog: Catalog, session: SessionInfo) throws(SluiceError) -> ScalarExpr? {
        func text(_ value: String?) -> ScalarExpr { .literal(value.map(Value.string) ?? .null, .varchar) }
        switch (name, arguments.count) {
        case ("version", 0): return text(serverVersion)
        case ("current_schema", 0): return text(session.schema)
        case ("current_database", 0), ("current_catalog", 0): return text(session.database)
        case ("current_user", 0), ("current_role", 0), ("user", 0): return text(session.user)
        case ("session_user", 0): return text(session.sessionUser)
        case ("pg_backend_pid", 0): return .literal(.int32(1), .int32)
        case ("pg_table_is_visible", 1), ("pg_type_is_visible", 1), ("pg_function_is_visible", 1), ("pg_collation_is_visible", 1),
            ("pg_opclass_is_visible", 1), ("pg_operator_is_visible", 1), ("pg_conversion_is_visible", 1), ("pg_ts_config_is_visible", 1),
            ("has_database_privilege", 2), ("has_database_privilege", 3), ("has_any_column_privilege", 2), ("has_any_column_privilege", 3),
            ("has_column_privilege", 3), ("has_column_privilege", 4), ("pg_has_role", 2), ("pg_has_role", 3):
            return .literal(.bool(true), .boolean)
        case ("has_table_privilege", 2), ("has_table_privilege", 3), ("has_schema_privilege", 2), ("has_schema_privilege", 3):
            var arguments = arguments
            if arguments.count == 2 { arguments.insert(.literal(.string(session.user), .varchar), at: 0) }
            let byOID = arguments[1].type.isInteger
            let object: ScalarExpr = byOID ? .cast(arguments[1], .int32) : .cast(arguments[1], .varchar)
            let function = privilegeCheck(name.hasPrefix("has_table") ? .table : .schema, byOID: byOID, catalog: catalog, session: session)
            return .call(function, [.cast(arguments[0], .varchar), object, .cast(arguments[2], .varchar)])
        case ("pg_get_userbyid", 1):
            guard arguments[0].type.isInteger || arguments[0].type == .unknown else { return text(nil) }
            return .call(userName(catalog: catalog), [.cast(arguments[0], .int32)])
        case ("pg_encoding_to_char", 1): return text("UTF8")
        case ("obj_description", _), ("col_description", _), ("shobj_description", _), ("pg_get_expr", _),
            ("pg_get_partkeydef", _), ("pg_get_serial_sequence", _), ("pg_get_statisticsobjdef_columns", _), ("pg_tablespace_location", _):
            return text(nil)
        case ("pg_get_function_result", 1), ("pg_get_function_arguments", 1), ("pg_get_function_identity_arguments", 1), ("pg_get_functiondef", 1):
            guard arguments[0].type.isInteger || arguments[0].type == .unknown else { return text(nil) }
            return .call(functionText(name, catalog: catalog), [.cast(arguments[0], .int32)])
        case ("pg_get_viewdef", 1), ("pg_get_viewdef", 2):
            guard arguments[0].type.isInteger || arguments[0].type == .unknown else { return text(nil) }
            return .call(viewDefinition(catalog: catalog), [.cast(arguments[0], .int32)])
        case ("current_schemas", 1):
            // The schemas of the search path that exist, implicit ones (pg_catalog) first when asked.
            return .call(currentSchemas, [.cast(arguments[0], .boolean)])
        case ("cardinality", 1):
            guard case .list(let element) = arguments[0].type else { return nil }
            return .call(ArrayFunctions.cardinality(elementType: element), arguments)
        case ("array_upper", 2), ("array_length", 2):
            guard case .list(let element) = arguments[0].type else { return nil }
            return .call(ArrayFunctions.upperBound(elementType: element, name: name), [arguments[0], .cast(arguments[1], .int32)])
        case ("pg_is_in_recovery", 0), ("pg_relation_is_publishable", 1): return .literal(.bool(false), .boolean)
        case ("pg_relation_size", _), ("pg_total_relation_size", _), ("pg_table_size", _), ("pg_indexes_size", _):
            return .literal(.int64(0), .int64)
        case ("current_setting", 1), ("current_setting", 2):
            if case .literal(.string(let setting), _) = arguments[0] {
                return text(SessionDefaults.value(of: setting.lowercased()) ?? "")
            }
            // A name known only at run time (a parameter, say).
            return .call(currentSetting, [.cast(arguments[0], .varchar)])
        case ("pg_get_indexdef", 3) where arguments[1] != .literal(.int32(0), .int32):
            // pg_get_indexdef(index, column, pretty): the name of one key column (1-based).
            return .call(indexColumn(catalog: catalog), [.cast(arguments[0], .int32), .cast(arguments[1], .int32)])
        case ("pg_get_indexdef", _), ("pg_get_constraintdef", _):
            return .call(constraintDefinition(catalog: catalog), [.cast(arguments[0], .int32)])
        case ("quote_ident", 1), ("quote_literal", 1), ("quote_nullable", 1):
            return .call(FormatFunction.quote(name), [.cast(arguments[0], .varchar)])
        case ("format", let count) where count >= 1:
            let textual = arguments.map { $0.type == .unknown ? ScalarExpr.cast($0, .varchar) : $0 }
            return .call(FormatFunction.format(textual.map(\.type)), textual)
        case ("array_to_string", 2):
            guard case .list(let element) = arguments[0].type else { return nil }
            return .call(ArrayFunctions.toString(elementType: element), [arguments[0], .cast(arguments[1], .varchar)])
        case ("json_build_object", let count) where count % 2 == 0, ("jsonb_build_object", let count) where count % 2 == 0:
            return .call(JSONFunctions.buildObject(arguments.map { $0.type == .unknown ? .varchar : $0.type }), arguments.map { $0.type == .unknown ? .cast($0, .varchar) : $0 })
        case ("to_regtype", 1):
            return .call(toRegType, [.cast(arguments[0], .varchar)])
        case ("to_regclass", 1):
            return .call(toRegClass(catalog: catalog, session: session), [.cast(arguments[0], .varchar)])
        case ("format_type", 2):
            return .call(formatType, [.cast(arguments[0], .int32), .cast(arguments[1], .int32)])
        default:
            return nil
        }
    }

    static let formatType = ScalarFunction(name: "format_type", argumentTypes: [.int32, .int32], resultType: .varchar) {
        (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
        try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
            guard case .int32(let oids) = arguments[0].storage, case .int32(let modifiers) = arguments[1].storage,
                !arguments[0].isNull(rowIndex)
            else { return false }
            let modifier = arguments[1].isNull(rowIndex) ? -1 : modifiers[rowIndex]
            out += (SystemCatalog.formatType(oid: oids[rowIndex], modifier: modifier) ?? "???").utf8
            return true
        }
    }

    /// `current_setting(name)` for a name not known when the query is planned.
    static let currentSetting = ScalarFunction(name: "current_setting", argumentTypes: [.varchar], resultType: .varchar) {
        (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
        try Kernels.buildValues(rowCount: rowCount, type: .varchar) { (rowIndex: Int) throws(SluiceError) -> Value in
            guard case .string(let setting) = arguments[0].value(at: rowIndex) else { return .null }
            return .string(SessionDefaults.value(of: setting.lowercased()) ?? "")
        }
    }

    /// `current_schemas(include_implicit)`: `{pg_catalog,public}` or `{public}`.
    static let currentSchemas = ScalarFunction(name: "current_schemas", argumentTypes: [.boolean], resultType: .list(.varchar)) {
        (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
        try Kernels.buildValues(rowCount: rowCount, type: .list(.varchar)) { (rowIndex: Int) throws(SluiceError) -> Value in
            guard case .bool(let implicit) = arguments[0].value(at: rowIndex) else { return .null }
            return .list((implicit ? ["pg_catalog", "public"] : ["public"]).map(Value.string))
        }
    }

    /// `pg_get_viewdef(oid)`: the defining query of a view or materialized view, as it was
    /// written (PostgreSQL prints its own rendering of the query; both start with a space and
    /// end with a semicolon).
    /// `pg_get_userbyid(oid)`: the role's name (`unknown (OID=n)` for none, as in Postgres).
    static func userName(catalog: Catalog) -> ScalarFunction {
        ScalarFunction(name: "pg_get_userbyid", argumentTypes: [.int32], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .varchar) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .int32(let oid) = arguments[0].value(at: rowIndex) else { return .null }
                return .string(catalog.role(oid: Int(oid))?.name ?? "unknown (OID=\(oid))")
            }
        }
    }

    enum PrivilegeObject { case table, schema }

    /// `has_table_privilege(user, table, privileges)` and `has_schema_privilege(…)`: whether the
    /// role holds any of the comma-separated privileges (`SELECT`, `INSERT WITH GRANT OPTION`, …)
    /// on the object named (or, for a table, given by oid). Unknown names are errors, as in Postgres.
    static func privilegeCheck(_ object: PrivilegeObject, byOID: Bool, catalog: Catalog, session: SessionInfo) -> ScalarFunction {
        let name = object == .table ? "has_table_privilege" : "has_schema_privilege"
        return ScalarFunction(name: name, argumentTypes: [.varchar, byOID ? .int32 : .varchar, .varchar], resultType: .boolean) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .string(let user) = arguments[0].value(at: rowIndex), case .string(let wanted) = arguments[2].value(at: rowIndex) else { return .null }
                guard let role = catalog.role(named: user) else { throw SluiceError(.undefinedObject, "role \"\(user)\" does not exist") }
                var privileges: [(PrivilegeSet, grantable: Bool)] = []
                for part in wanted.split(separator: ",") {
                    var words = part.split(separator: " ").map { $0.uppercased() }
                    let grantable = words.count == 4 && words[1...] == ["WITH", "GRANT", "OPTION"]
                    if grantable { words = [words[0]] }
                    guard words.count == 1, let privilege = Privilege(rawValue: words[0] == "TEMP" ? "TEMPORARY" : words[0]) else {
                        throw SluiceError(.invalidParameterValue, "unrecognized privilege type: \"\(part.trimmingCharacters(in: .whitespaces))\"")
                    }
                    privileges.append((PrivilegeSet(privilege), grantable))
                }
                let access: ObjectAccess
                switch (object, arguments[1].value(at: rowIndex)) {
                case (.table, .int32(let oid)):
                    guard let relation = catalog.relation(id: Int(oid)) else { return .null }
                    access = relation.accessControl
                case (.table, .string(let text)):
                    guard let name = relationName(text), let relation = catalog.relation(named: name.name, schema: name.qualifier.last ?? session.schema) else {
                        throw SluiceError(.undefinedTable, "relation \"\(text)\" does not exist")
                    }
                    access = relation.accessControl
                case (.schema, .string(let schema)):
                    guard catalog.hasSchema(schema) else { throw SluiceError(.invalidSchemaName, "schema \"\(schema)\" does not exist") }
                    access = catalog.schemaAccess(schema)
                default:
                    return .null
                }
                let roles = catalog.privilegeRoles(of: role)
                let held = privileges.contains { privilege, grantable in
                    grantable
                        ? role.superuser || roles.contains(access.owner) || access.grantable(by: role.oid).isSuperset(of: privilege)
                        : access.allows(privilege, to: role, through: roles)
                }
                return .bool(held)
            }
        }
    }

    static func viewDefinition(catalog: Catalog) -> ScalarFunction {
        ScalarFunction(name: "pg_get_viewdef", argumentTypes: [.int32], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .varchar) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .int32(let oid) = arguments[0].value(at: rowIndex), let relation = catalog.relation(id: Int(oid)),
                    relation.kind == .view || relation.kind == .materializedView
                else { return .null }
                guard let statement = try? SQLParser.parse(relation.definition).first, case .createView(let view) = statement.kind else {
                    return .string(relation.maskedDefinition)
                }
                return .string(" " + view.queryText.trimmingCharacters(in: .whitespacesAndNewlines) + ";")
            }
        }
    }

    /// `pg_get_function_result`, `pg_get_function_arguments`, `pg_get_function_identity_arguments`
    /// and `pg_get_functiondef` of a SQL function's oid (NULL for any other oid).
    static func functionText(_ name: String, catalog: Catalog) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [.int32], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .varchar) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .int32(let oid) = arguments[0].value(at: rowIndex), let function = catalog.function(id: Int(oid)) else { return .null }
                switch name {
                case "pg_get_function_result": return .string(function.returnType.sqlName)
                case "pg_get_functiondef": return .string(function.definition)
                default: return .string(function.argumentsText)
                }
            }
        }
    }

    /// `pg_get_indexdef(index, column, pretty)` for a column number above 0: that key column's name.
    static func indexColumn(catalog: Catalog) -> ScalarFunction {
        ScalarFunction(name: "pg_get_indexdef", argumentTypes: [.int32, .int32], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .varchar) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .int32(let oid) = arguments[0].value(at: rowIndex), case .int32(let column) = arguments[1].value(at: rowIndex) else {
                    return .null
                }
                for relation in catalog.relations {
                    if !relation.primaryKey.isEmpty && SystemCatalog.primaryKeyIndexOID(relation) == Int(oid) {
                        guard column >= 1, Int(column) <= relation.primaryKey.count else { return .string("") }
                        return .string(relation.columns[relation.primaryKey[Int(column) - 1]].name)
                    }
                    if let index = relation.indexList.first(where: { $0.id == Int(oid) }) {
                        let columns = index.keys.map(\.column) + index.include
                        guard column >= 1, Int(column) <= columns.count else { return .string("") }
                        return .string(relation.columns[columns[Int(column) - 1]].name)
                    }
                }
                return .null
            }
        }
    }

    /// `to_regtype(name)`: the OID of the named type, or NULL.
    static let toRegType = ScalarFunction(name: "to_regtype", argumentTypes: [.varchar], resultType: .int32) {
        (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
        try Kernels.buildValues(rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Value in
            guard case .string(let name) = arguments[0].value(at: rowIndex),
                let type = try? SQLParser.parseTypeName(name).resolvedDataType()
            else { return .null }
            return .int32(type.oid)
        }
    }

    /// `to_regclass(name)`: the OID of the named relation, or NULL.
    /// A relation's name as text (`regclass` input): `t`, `s.t`, `"S"."My Table"`, with SQL's
    /// quoting and case folding; nil when it is not a name.
    static func relationName(_ text: String) -> ObjectName? {
        guard let expression = try? SQLParser.parseExpression(text), case .column(let parts) = expression.node, !parts.isEmpty else { return nil }
        return ObjectName(parts)
    }

    static func toRegClass(catalog: Catalog, session: SessionInfo) -> ScalarFunction {
        ScalarFunction(name: "to_regclass", argumentTypes: [.varchar], resultType: .int32) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .string(let text) = arguments[0].value(at: rowIndex), let name = relationName(text) else { return .null }
                if name.qualifier.isEmpty || name.qualifier == ["pg_catalog"], let oid = SystemCatalog.catalogTableOIDs[name.name] {
                    return .int32(oid)
                }
                guard let relation = catalog.relation(named: name.name, schema: name.qualifier.last ?? session.schema) else {
                    return .null
                }
                return .int32(Int32(relation.id))
            }
        }
    }

    static func constraintDefinition(catalog: Catalog) -> ScalarFunction {
        ScalarFunction(name: "pg_get_constraintdef", argumentTypes: [.int32], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard case .int32(let oids) = arguments[0].storage, !arguments[0].isNull(rowIndex) else { return false }
                for relation in catalog.relations {
                    if let index = relation.indexList.first(where: { $0.id == Int(oids[rowIndex]) }) {
                        out += index.definition(on: relation).utf8
                        return true
                    }
                    guard !relation.primaryKey.isEmpty else { continue }
                    let index = Int32(SystemCatalog.primaryKeyIndexOID(relation))
                    if oids[rowIndex] == index || oids[rowIndex] == index + 1 {
                        let columns = relation.primaryKey.map { relation.columns[$0].name }.joined(separator: ", ")
                        out += (oids[rowIndex] == index
                            ? "CREATE UNIQUE INDEX \(relation.name)_pkey ON public.\(relation.name) USING btree (\(columns))"
                            : "PRIMARY KEY (\(columns))").utf8
                        return true
                    }
                }
                return false
            }
        }
    }
}

/// Settings every session starts with, as `SHOW` and `current_setting` report them.
package enum SessionDefaults {
    package static let values: [(String, String)] = [
        ("application_name", ""),
        ("client_encoding", "UTF8"),
        ("datestyle", "ISO, MDY"),
        ("intervalstyle", "postgres"),
        ("timezone", "UTC"),
        ("server_version", "13.14.0"),
        ("default_table_access_method", "heap"),
        ("max_index_keys", "32"),
        ("server_version_num", "130014"),
        ("server_encoding", "UTF8"),
        ("standard_conforming_strings", "on"),
        ("integer_datetimes", "on"),
        ("extra_float_digits", "1"),
        ("search_path", "\"$user\", public"),
        ("transaction_isolation", "read committed"),
        ("default_transaction_isolation", "read committed"),
        ("transaction_read_only", "off"),
        ("max_identifier_length", "63"),
        ("lc_collate", "C"),
        ("lc_ctype", "C"),
        ("is_superuser", "on"),
        ("rw_implicit_flush", "false"),
        ("barrier_interval_ms", "1000"),
        ("statement_timeout", "0"),
        // 0: the server's --memory-limit.
        ("query_memory_limit", "0"),
        // The SQL the session speaks: `risingwave` (Sluice's own) or `flink`.
        ("sql_dialect", "risingwave"),
    ]

    /// Settings that clients set and Sluice accepts without acting on them.
    package static let accepted: Set<String> = [
        "client_min_messages", "lock_timeout", "idle_in_transaction_session_timeout", "bytea_output", "row_security",
        "default_transaction_read_only", "synchronous_commit", "jit", "geqo", "work_mem", "streaming_parallelism",
        "query_mode", "search_path", "application_name", "timezone", "datestyle", "intervalstyle", "extra_float_digits",
        "statement_timeout", "client_encoding", "standard_conforming_strings",
    ]

    /// Whether `SET name` is accepted: a known setting, or a custom one with a dot (`app.x`).
    package static func isKnown(_ name: String) -> Bool {
        value(of: name) != nil || accepted.contains(name) || name.contains(".")
    }

    package static func value(of name: String) -> String? {
        values.first { $0.0 == name }?.1
    }
}
