import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// The Postgres system catalogs clients query (`pg_catalog.*`, `information_schema.*`),
/// generated from our catalog when a query names them.
///
/// Only the columns that `psql`, drivers and SQLAlchemy read are present. `oid` columns are
/// `integer` (our relation ids start at 16384, inside the positive range).
enum SystemCatalog {
    static let publicNamespaceOID: Int32 = 2200
    static let catalogNamespaceOID: Int32 = 11
    static let informationSchemaOID: Int32 = 13000

    private struct Table {
        var columns: [(String, DataType)]
        var rows: [[Value]]
    }

    static func relation(named name: ObjectName, catalog: Catalog, session: SessionInfo) throws(SluiceError) -> BoundQuery? {
        let schema = name.qualifier.last
        guard schema == nil || schema == "pg_catalog" || schema == "information_schema" || schema == "rw_catalog" else { return nil }
        let table: Table?
        if schema == nil, name.name.hasPrefix("sluice_"), let sluice = sluiceTable(name.name, catalog: catalog, session: session) {
            table = sluice
        } else if schema == "rw_catalog" || (schema == nil && name.name.hasPrefix("rw_")) {
            table = rwCatalog(name.name, catalog: catalog, session: session)
            if table == nil, schema == nil { return nil }
        } else if schema == "information_schema" {
            table = informationSchema(name.name, catalog: catalog, session: session)
        } else {
            table = pgCatalog(name.name, catalog: catalog, session: session)
            if table == nil, schema == nil { return nil }
        }
        guard let table else {
            throw SluiceError(.undefinedTable, "relation \"\(name.description)\" does not exist")
        }
        let types = table.columns.map(\.1)
        guard table.rows.allSatisfy({ $0.count == types.count }) else {
            throw SluiceError.internalError("system table \(name.name) has rows of the wrong width")
        }
        let plan: BatchPlan = .values(
            rows: table.rows.map { row in zip(row, types).map { ScalarExpr.literal($0.0, $0.1) } }, types: types)
        var scope = Scope(entries: table.columns.map { Scope.Entry(qualifier: name.name, name: $0.0, type: $0.1) })
        if name.name == "pg_index" {
            for index in scope.entries.indices {
                switch scope.entries[index].name {
                case "indkey", "indoption": scope.entries[index].vectorOID = 22
                case "indclass", "indcollation": scope.entries[index].vectorOID = 30
                default: break
                }
            }
        }
        if table.rows.isEmpty {
            // An empty VALUES is not allowed; filter a one-row NULL VALUES away instead.
            let nullRow = types.map { ScalarExpr.literal(.null, $0) }
            return BoundQuery(plan: .filter(input: .values(rows: [nullRow], types: types), predicate: .literal(.bool(false), .boolean)), scope: scope)
        }
        return BoundQuery(plan: plan, scope: scope)
    }

    /// The relations the session's user may see (a superuser: all), and each one's owner's name.
    private static func visible(_ catalog: Catalog, _ session: SessionInfo) -> [RelationDefinition] {
        catalog.visibleRelations(to: catalog.role(named: session.user))
    }

    /// `relacl` and `nspacl`: Postgres's `aclitem[]`, as text items (NULL: the defaults).
    private static func aclValue(_ access: ObjectAccess, _ kind: PrivilegeObjectKind, _ catalog: Catalog) -> Value {
        access.aclItems(kind: kind) { catalog.role(oid: $0)?.name ?? "" }.map { .list($0.map(Value.string)) } ?? .null
    }

    private static func ownerName(_ access: ObjectAccess, _ catalog: Catalog) -> String {
        catalog.role(oid: access.owner)?.name ?? RoleDefinition.root.name
    }

    private static func pgCatalog(_ name: String, catalog: Catalog, session: SessionInfo) -> Table? {
        let relations = visible(catalog, session)
        switch name {
        case "pg_namespace":
            return Table(
                columns: [("oid", .int32), ("nspname", .varchar), ("nspowner", .int32), ("nspacl", .list(.varchar))],
                rows: [
                    [.int32(catalogNamespaceOID), .string("pg_catalog"), .int32(10), .null],
                    [.int32(informationSchemaOID), .string("information_schema"), .int32(10), .null],
                ] + catalog.schemas.sorted { $0.value < $1.value }.map { name, oid in
                    let access = catalog.schemaAccess(name)
                    return [.int32(Int32(oid)), .string(name), .int32(Int32(access.owner)), aclValue(access, .schema, catalog)]
                })
        case "pg_class":
            return Table(
                columns: [
                    ("oid", .int32), ("relname", .varchar), ("relnamespace", .int32), ("reltype", .int32), ("relowner", .int32),
                    ("relam", .int32), ("relkind", .varchar), ("relnatts", .int16), ("relchecks", .int16), ("relhasindex", .boolean),
                    ("relhasrules", .boolean), ("relhastriggers", .boolean), ("relrowsecurity", .boolean),
                    ("relforcerowsecurity", .boolean), ("relispartition", .boolean), ("reltablespace", .int32),
                    ("reloftype", .int32), ("relpersistence", .varchar), ("relreplident", .varchar), ("reltoastrelid", .int32),
                    ("reloptions", .list(.varchar)), ("relacl", .list(.varchar)), ("relpartbound", .varchar), ("reltuples", .float32),
                    ("relpages", .int32), ("relhassubclass", .boolean), ("relisshared", .boolean),
                ],
                rows: relations.map { relation in
                    let access = relation.accessControl
                    return [
                        .int32(Int32(relation.id)), .string(relation.name), .int32(Int32(catalog.schemas[relation.schema] ?? 2200)), .int32(0),
                        .int32(Int32(access.owner)),
                        .int32(relation.kind == .table ? 2 : 0), .string(relation.kind.relkind), .int16(Int16(relation.columns.count)),
                        .int16(0), .bool(!relation.primaryKey.isEmpty || !relation.indexList.isEmpty), .bool(false), .bool(false), .bool(false), .bool(false),
                        .bool(false), .int32(0), .int32(0), .string("p"), .string("d"), .int32(0), .null, aclValue(access, .relation(relation.kind), catalog), .null, .float32(-1),
                        .int32(0), .bool(false), .bool(false),
                    ]
                } + relations.filter { !$0.primaryKey.isEmpty }.map { relation in
                    [
                        .int32(Int32(primaryKeyIndexOID(relation))), .string("\(relation.name)_pkey"), .int32(Int32(catalog.schemas[relation.schema] ?? 2200)), .int32(0),
                        .int32(10), .int32(403), .string("i"), .int16(Int16(relation.primaryKey.count)), .int16(0), .bool(false),
                        .bool(false), .bool(false), .bool(false), .bool(false), .bool(false), .int32(0), .int32(0), .string("p"),
                        .string("n"), .int32(0), .null, .null, .null, .float32(-1), .int32(0), .bool(false), .bool(false),
                    ]
                } + relations.flatMap { relation in
                    relation.indexList.map { indexClassRow($0, namespace: catalog.schemas[relation.schema] ?? 2200) }
                })
        case "pg_attribute":
            var rows: [[Value]] = []
            for relation in relations {
                for (index, column) in relation.columns.enumerated() {
                    rows.append([
                        .int32(Int32(relation.id)), .string(column.name), .int32(column.type.oid), .int32(typeModifier(column.type)),
                        .int16(Int16(index + 1)), .bool(!column.isNullable), .bool(false), .bool(false), .string(""), .string(""),
                        .int32(0), .int16(column.type.typeLength), .int32(0), .bool(true), .null,
                        .string(column.type.storage), .string(""), .int16(-1), .null,
                    ])
                }
            }
            return Table(
                columns: [
                    ("attrelid", .int32), ("attname", .varchar), ("atttypid", .int32), ("atttypmod", .int32), ("attnum", .int16),
                    ("attnotnull", .boolean), ("attisdropped", .boolean), ("atthasdef", .boolean), ("attidentity", .varchar),
                    ("attgenerated", .varchar), ("attcollation", .int32), ("attlen", .int16), ("attndims", .int32),
                    ("attislocal", .boolean), ("attoptions", .varchar), ("attstorage", .varchar), ("attcompression", .varchar),
                    ("attstattarget", .int16), ("attacl", .list(.varchar)),
                ], rows: rows)
        case "pg_type":
            return Table(
                columns: [
                    ("oid", .int32), ("typname", .varchar), ("typnamespace", .int32), ("typowner", .int32), ("typlen", .int16),
                    ("typtype", .varchar), ("typcategory", .varchar), ("typbasetype", .int32), ("typrelid", .int32),
                    ("typelem", .int32), ("typarray", .int32), ("typnotnull", .boolean), ("typtypmod", .int32),
                    ("typdefault", .varchar), ("typcollation", .int32), ("typinput", .varchar), ("typoutput", .varchar),
                    ("typdelim", .varchar),
                ],
                rows: builtinTypes.map { type in
                    [
                        .int32(type.oid), .string(type.name), .int32(catalogNamespaceOID), .int32(10), .int16(type.length),
                        .string("b"), .string(type.category), .int32(0), .int32(0), .int32(type.element), .int32(type.array),
                        .bool(false), .int32(-1), .null, .int32(0), .string("\(type.name)in"), .string("\(type.name)out"), .string(","),
                    ]
                })
        case "pg_am":
            return Table(columns: [("oid", .int32), ("amname", .varchar), ("amtype", .varchar)], rows: [[.int32(2), .string("heap"), .string("t")], [.int32(403), .string("btree"), .string("i")]])
        case "pg_database":
            return Table(
                columns: [("oid", .int32), ("datname", .varchar), ("datdba", .int32), ("encoding", .int32), ("datcollate", .varchar), ("datctype", .varchar), ("datallowconn", .boolean), ("datistemplate", .boolean), ("datacl", .varchar)],
                rows: [[.int32(1), .string(session.database), .int32(10), .int32(6), .string("C"), .string("C"), .bool(true), .bool(false), .null]])
        case "pg_index":
            return Table(
                columns: [
                    ("indexrelid", .int32), ("indrelid", .int32), ("indnatts", .int16), ("indnkeyatts", .int16), ("indisunique", .boolean),
                    ("indisprimary", .boolean), ("indisexclusion", .boolean), ("indimmediate", .boolean), ("indisclustered", .boolean),
                    ("indisvalid", .boolean), ("indisreplident", .boolean), ("indkey", .list(.int16)), ("indoption", .list(.int16)),
                    ("indexprs", .varchar), ("indpred", .varchar), ("indclass", .list(.int32)), ("indcollation", .list(.int32)),
                    ("indnullsnotdistinct", .boolean),
                ],
                rows: relations.filter { !$0.primaryKey.isEmpty }.map { relation -> [Value] in
                    [
                        .int32(Int32(primaryKeyIndexOID(relation))), .int32(Int32(relation.id)), .int16(Int16(relation.primaryKey.count)),
                        .int16(Int16(relation.primaryKey.count)), .bool(true), .bool(true), .bool(false), .bool(true), .bool(false),
                        .bool(true), .bool(false), .list(relation.primaryKey.map { .int16(Int16($0 + 1)) }),
                        .list(relation.primaryKey.map { _ in .int16(0) }), .null, .null,
                        .list(relation.primaryKey.map { _ in .int32(1978) }), .list(relation.primaryKey.map { _ in .int32(0) }), .bool(false),
                    ]
                } + relations.flatMap { relation -> [[Value]] in relation.indexList.map { indexRow($0, of: relation) } })
        case "pg_constraint":
            return Table(
                columns: [
                    ("oid", .int32), ("conname", .varchar), ("connamespace", .int32), ("contype", .varchar), ("conrelid", .int32),
                    ("conindid", .int32), ("confrelid", .int32), ("conkey", .list(.int16)), ("condeferrable", .boolean),
                    ("condeferred", .boolean), ("convalidated", .boolean), ("conislocal", .boolean), ("contypid", .int32),
                    ("conparentid", .int32), ("confkey", .list(.int16)), ("confupdtype", .varchar), ("confdeltype", .varchar),
                    ("confmatchtype", .varchar),
                ],
                rows: relations.filter { !$0.primaryKey.isEmpty }.map { relation in
                    [
                        .int32(Int32(primaryKeyIndexOID(relation)) + 1), .string("\(relation.name)_pkey"), .int32(Int32(catalog.schemas[relation.schema] ?? 2200)),
                        .string("p"), .int32(Int32(relation.id)), .int32(Int32(primaryKeyIndexOID(relation))), .int32(0),
                        .list(relation.primaryKey.map { .int16(Int16($0 + 1)) }), .bool(false),
                        .bool(false), .bool(true), .bool(true), .int32(0), .int32(0), .null, .string(" "), .string(" "), .string(" "),
                    ]
                })
        case "pg_attrdef", "pg_description", "pg_inherits", "pg_trigger", "pg_rewrite", "pg_policy", "pg_statistic_ext",
            "pg_publication", "pg_publication_rel", "pg_foreign_table", "pg_partitioned_table", "pg_sequence", "pg_event_trigger",
            "pg_extension", "pg_enum", "pg_collation", "pg_proc", "pg_opclass", "pg_depend", "pg_shdescription", "pg_tablespace":
            return emptyTable(name)
        case "pg_settings":
            return Table(
                columns: [
                    ("name", .varchar), ("setting", .varchar), ("unit", .varchar), ("category", .varchar), ("short_desc", .varchar),
                    ("context", .varchar), ("vartype", .varchar), ("source", .varchar), ("boot_val", .varchar), ("reset_val", .varchar),
                ],
                rows: SessionDefaults.values.sorted { $0.0 < $1.0 }.map { setting in
                    [
                        .string(setting.0), .string(setting.1), .null, .string(""), .string(""), .string("user"), .string("string"),
                        .string("default"), .string(setting.1), .string(setting.1),
                    ]
                })
        case "pg_roles":
            // Postgres's columns; passwords show as ******** (set) or NULL, as Postgres shows them.
            return Table(
                columns: [
                    ("oid", .int32), ("rolname", .varchar), ("rolsuper", .boolean), ("rolinherit", .boolean), ("rolcreaterole", .boolean),
                    ("rolcreatedb", .boolean), ("rolcanlogin", .boolean), ("rolreplication", .boolean), ("rolconnlimit", .int32),
                    ("rolpassword", .varchar), ("rolvaliduntil", .timestamptz), ("rolbypassrls", .boolean), ("rolconfig", .list(.varchar)),
                ],
                rows: catalog.roles.map { role in
                    [
                        .int32(Int32(role.oid)), .string(role.name), .bool(role.superuser), .bool(role.inherit), .bool(role.createRole),
                        .bool(role.createDB), .bool(role.canLogin), .bool(false), .int32(Int32(role.connectionLimit)),
                        role.password == nil ? .null : .string("********"), .null, .bool(role.superuser), .null,
                    ]
                })
        case "pg_user":
            // The roles that may log in.
            return Table(
                columns: [
                    ("usename", .varchar), ("usesysid", .int32), ("usecreatedb", .boolean), ("usesuper", .boolean), ("userepl", .boolean),
                    ("usebypassrls", .boolean), ("passwd", .varchar), ("valuntil", .timestamptz), ("useconfig", .list(.varchar)),
                ],
                rows: catalog.roles.filter(\.canLogin).map { role in
                    [
                        .string(role.name), .int32(Int32(role.oid)), .bool(role.createDB), .bool(role.superuser), .bool(false),
                        .bool(role.superuser), .string("********"), .null, .null,
                    ]
                })
        case "pg_auth_members":
            return Table(
                columns: [("oid", .int32), ("roleid", .int32), ("member", .int32), ("grantor", .int32), ("admin_option", .boolean)],
                rows: catalog.roles.flatMap { member in
                    (member.memberships ?? []).map { membership in
                        // (Postgres 16's row oid; rows are numbered by member and role.)
                        let oid = Int32(truncatingIfNeeded: member.oid &* 65_599 &+ membership.role)
                        return [.int32(oid), .int32(Int32(membership.role)), .int32(Int32(member.oid)), .int32(Int32(membership.grantor)), .bool(membership.admin)]
                    }
                })
        case "pg_tables":
            return Table(
                columns: [("schemaname", .varchar), ("tablename", .varchar), ("tableowner", .varchar), ("tablespace", .varchar), ("hasindexes", .boolean)],
                rows: relations.filter { $0.kind == .table }.map {
                    [.string($0.schema), .string($0.name), .string(ownerName($0.accessControl, catalog)), .null, .bool(!$0.primaryKey.isEmpty || !$0.indexList.isEmpty)]
                })
        case "pg_indexes":
            return Table(
                columns: [("schemaname", .varchar), ("tablename", .varchar), ("indexname", .varchar), ("tablespace", .varchar), ("indexdef", .varchar)],
                rows: relations.flatMap { relation -> [[Value]] in
                    var rows: [[Value]] = []
                    if !relation.primaryKey.isEmpty {
                        let columns = relation.primaryKey.map { quoteIdentifierIfNeeded(relation.columns[$0].name) }.joined(separator: ", ")
                        rows.append([
                            .string(relation.schema), .string(relation.name), .string("\(relation.name)_pkey"), .null,
                            .string("CREATE UNIQUE INDEX \(relation.name)_pkey ON \(relation.schema).\(relation.name) USING btree (\(columns))"),
                        ])
                    }
                    for index in relation.indexList {
                        rows.append([.string(relation.schema), .string(relation.name), .string(index.name), .null, .string(index.definition(on: relation))])
                    }
                    return rows
                })
        case "pg_stat_user_tables", "pg_stat_all_tables":
            // Tables and materialized views, with the rows they hold now.
            return Table(
                columns: [
                    ("relid", .int32), ("schemaname", .varchar), ("relname", .varchar), ("seq_scan", .int64), ("n_tup_ins", .int64),
                    ("n_tup_upd", .int64), ("n_tup_del", .int64), ("n_live_tup", .int64), ("n_dead_tup", .int64),
                ],
                rows: relations.filter { $0.kind == .table || $0.kind == .materializedView }.map { relation in
                    [
                        .int32(Int32(relation.id)), .string(relation.schema), .string(relation.name), .int64(0), .int64(0), .int64(0), .int64(0),
                        session.rowCount(relation.id).map { .int64(Int64($0)) } ?? .null, .int64(0),
                    ]
                })
        case "pg_matviews":
            return Table(
                columns: [("schemaname", .varchar), ("matviewname", .varchar), ("matviewowner", .varchar), ("definition", .varchar)],
                rows: relations.filter { $0.kind == .materializedView }.map { [.string($0.schema), .string($0.name), .string(ownerName($0.accessControl, catalog)), .string($0.maskedDefinition)] })
        case "pg_views":
            return Table(
                columns: [("schemaname", .varchar), ("viewname", .varchar), ("viewowner", .varchar), ("definition", .varchar)],
                rows: relations.filter { $0.kind == .view }.map { [.string($0.schema), .string($0.name), .string(ownerName($0.accessControl, catalog)), .string($0.maskedDefinition)] })
        default:
            return nil
        }
    }

    /// Sluice's own views of running connectors: `sluice_sources`, a row per connector with its
    /// counters (rows read, rejected as malformed, dropped behind the watermark, and dropped as repeats by `dedup.key`), and `sluice_source_errors`, a row per kept rejected row (the newest 1,000 per
    /// connector; `sluice_sources.rows_rejected` counts them all); and `sluice_checkpoints`, the
    /// recent checkpoints (the last 100), written or failed; and `sluice_memory`, one row of the
    /// state store's, the queries' and the process's memory use against `--memory-limit`;
    /// `sluice_memory_by_owner`, a row per holder of memory (``MemoryStatus/byOwner``).
    private static func sluiceTable(_ name: String, catalog: Catalog, session: SessionInfo) -> Table? {
        let visibleIDs = Set(visible(catalog, session).map(\.id))
        switch name {
        case "sluice_sources":
            return Table(
                columns: [
                    ("id", .int32), ("name", .varchar), ("kind", .varchar), ("connector", .varchar), ("rows_read", .int64),
                    ("rows_rejected", .int64), ("status", .varchar), ("rows_late", .int64), ("bytes_read", .int64), ("lag", .int64),
                    ("rows_deduplicated", .int64),
                ],
                rows: catalog.systemReader.sources.compactMap { status in
                    guard visibleIDs.contains(status.relationID), let relation = catalog.relation(id: status.relationID) else { return nil }
                    return [
                        .int32(Int32(relation.id)), .string(relation.name), .string(relation.kind.rawValue),
                        .string(relation.connector?.connector ?? ""), .int64(Int64(status.rowsRead)), .int64(Int64(status.rowsRejected)),
                        .string(status.status), .int64(Int64(status.rowsLate)), .int64(Int64(status.bytesRead)),
                        status.lag.map { .int64(Int64($0)) } ?? .null, .int64(Int64(status.rowsDeduplicated)),
                    ]
                })
        case "sluice_sinks":
            return Table(
                columns: [
                    ("id", .int32), ("name", .varchar), ("connector", .varchar), ("target", .varchar), ("state", .varchar),
                    ("last_commit_epoch", .int64), ("last_commit_at", .timestamptz), ("commits", .int64), ("files", .int64),
                    ("rows", .int64), ("rows_in", .int64), ("pending_epochs", .int32), ("commit_failures", .int64), ("last_error", .varchar),
                ],
                rows: catalog.systemReader.sinks.compactMap { status in
                    guard visibleIDs.contains(status.relationID), let relation = catalog.relation(id: status.relationID) else { return nil }
                    let options = relation.connector?.options ?? [:]
                    let target = [options["database.name"], options["table.name"]].compactMap { $0 }.joined(separator: ".")
                    return [
                        .int32(Int32(relation.id)), .string(relation.name), .string(relation.connector?.connector ?? ""), .string(target),
                        .string(status.state), .int64(Int64(status.lastCommitEpoch)), status.lastCommitAt.map { .timestamptz($0) } ?? .null,
                        .int64(Int64(status.commits)), .int64(Int64(status.files)), .int64(Int64(status.rows)), .int64(Int64(status.rowsIn)),
                        .int32(Int32(status.pendingEpochs)), .int64(Int64(status.commitFailures)), status.lastError.map { .string($0) } ?? .null,
                    ]
                })
        case "sluice_checkpoints":
            return Table(
                columns: [
                    ("epoch", .int64), ("started_at", .timestamptz), ("status", .varchar), ("tables", .int32), ("bytes_written", .int64),
                    ("duration_ms", .float64), ("kind", .varchar),
                ],
                rows: catalog.systemReader.checkpoints.map { record in
                    [
                        .int64(Int64(record.epoch)), .timestamptz(record.startedAt), .string(record.error.map { "failed: \($0)" } ?? "done"),
                        .int32(Int32(record.tables)), .int64(Int64(record.bytesWritten)), .float64(Double(record.durationMicroseconds) / 1000),
                        .string(record.kind),
                    ]
                })
        case "sluice_memory":
            let memory = catalog.systemReader.memory
            return Table(
                columns: [
                    ("limit_bytes", .int64), ("state_resident_bytes", .int64), ("state_peak_resident_bytes", .int64),
                    ("state_spilled_bytes", .int64), ("pages_evicted", .int64), ("pages_loaded", .int64), ("process_rss_bytes", .int64),
                    ("process_peak_rss_bytes", .int64), ("query_reserved_bytes", .int64), ("query_limit_bytes", .int64),
                ],
                rows: [
                    [
                        .int64(Int64(memory.limitBytes)), .int64(Int64(memory.residentBytes)), .int64(Int64(memory.peakResidentBytes)),
                        .int64(Int64(memory.spilledBytes)), .int64(Int64(memory.evictedPages)), .int64(Int64(memory.loadedPages)),
                        .int64(Int64(memory.processBytes)), .int64(Int64(memory.processPeakBytes)),
                        .int64(Int64(memory.queryReservedBytes)), .int64(Int64(memory.queryLimitBytes)),
                    ]
                ])
        case "sluice_memory_by_owner":
            return Table(
                columns: [("owner", .varchar), ("bytes", .int64)],
                rows: catalog.systemReader.memory.byOwner.map { [.string($0.owner), .int64(Int64($0.bytes))] })
        case "sluice_source_errors":
            return Table(
                columns: [
                    ("source_id", .int32), ("source_name", .varchar), ("partition", .int32), ("offset", .int64), ("error", .varchar),
                    ("payload", .varchar), ("rejected_at", .timestamptz),
                ],
                rows: catalog.systemReader.sources.flatMap { status -> [[Value]] in
                    guard visibleIDs.contains(status.relationID), let relation = catalog.relation(id: status.relationID) else { return [] }
                    return status.errors.map { error in
                        [
                            .int32(Int32(relation.id)), .string(relation.name), .int32(error.partition), .int64(error.offset),
                            .string(error.message), .string(error.payload), .timestamptz(error.rejectedAt),
                        ]
                    }
                })
        default:
            return nil
        }
    }

    /// RisingWave's `rw_catalog` views that describe streaming jobs.
    private static func rwCatalog(_ name: String, catalog: Catalog, session: SessionInfo) -> Table? {
        let relations = visible(catalog, session)
        let visibleIDs = Set(relations.map(\.id))
        switch name {
        case "rw_materialized_views":
            return Table(
                columns: [("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("definition", .varchar)],
                rows: relations.filter { $0.kind == .materializedView }.map {
                    [.int32(Int32($0.id)), .string($0.name), .int32(Int32(catalog.schemas[$0.schema] ?? 2200)), .int32(Int32($0.accessControl.owner)), .string($0.maskedDefinition)]
                })
        case "rw_sources":
            return Table(
                columns: [
                    ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("connector", .varchar),
                    ("format", .varchar), ("row_encode", .varchar), ("definition", .varchar),
                ],
                rows: relations.filter { $0.kind == .source || ($0.kind == .table && $0.connector != nil) }.map {
                    [
                        .int32(Int32($0.id)), .string($0.name), .int32(Int32(catalog.schemas[$0.schema] ?? 2200)), .int32(Int32($0.accessControl.owner)),
                        .string($0.connector?.connector.uppercased() ?? ""), .string($0.connector?.format ?? ""),
                        .string($0.connector?.encode ?? ""), .string($0.maskedDefinition),
                    ]
                })
        case "rw_sinks":
            return Table(
                columns: [
                    ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("connector", .varchar),
                    ("sink_type", .varchar), ("definition", .varchar),
                ],
                rows: relations.filter { $0.kind == .sink }.map {
                    [
                        .int32(Int32($0.id)), .string($0.name), .int32(Int32(catalog.schemas[$0.schema] ?? 2200)), .int32(Int32($0.accessControl.owner)),
                        .string($0.connector?.connector ?? ""), .string($0.appendOnly == false ? "UPSERT" : "APPEND_ONLY"), .string($0.maskedDefinition),
                    ]
                })
        case "rw_ddl_progress":
            // RisingWave's: a row per materialized view or sink still backfilling from the rows
            // its inputs held at CREATE, with the share done.
            return Table(
                columns: [("ddl_id", .int64), ("ddl_statement", .varchar), ("progress", .varchar), ("initialized_at", .timestamptz)],
                rows: catalog.systemReader.streamingJobs.filter { $0.isBackfilling && visibleIDs.contains($0.viewID) }.map { status in
                    let percent = Double(status.backfilledRows) * 100 / Double(max(status.backfillRows, 1))
                    let statement = catalog.relation(id: status.viewID)?.maskedDefinition ?? ""
                    let hundredths = Int((percent * 100).rounded(.down))
                    let fraction = hundredths % 100
                    return [
                        .int64(Int64(status.viewID)), .string(statement),
                        .string("\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)%"), .timestamptz(status.createdAt),
                    ]
                })
        case "rw_fragments":
            // One fragment per view for now: its whole operator graph runs on one thread.
            return Table(
                columns: [
                    ("fragment_id", .int32), ("table_id", .int32), ("name", .varchar), ("upstream_table_ids", .list(.int32)),
                    ("row_count", .int64), ("rows_in", .int64), ("errors", .int64), ("last_error", .varchar), ("plan", .varchar),
                    ("state_bytes", .int64), ("rows_out", .int64),
                ],
                rows: catalog.systemReader.streamingJobs.filter { visibleIDs.contains($0.viewID) }.map { status in
                    [
                        .int32(Int32(status.viewID)), .int32(Int32(status.viewID)),
                        .string(catalog.relation(id: status.viewID)?.name ?? ""),
                        .list(status.upstreams.map { .int32(Int32($0)) }), .int64(Int64(status.rowCount)), .int64(Int64(status.rowsIn)),
                        .int64(Int64(status.errors)), status.lastError.map { .string($0) } ?? .null, .string(status.plan),
                        .int64(Int64(status.stateBytes)), .int64(Int64(status.rowsOut)),
                    ]
                })
        default:
            return nil
        }
    }

    private static func emptyTable(_ name: String) -> Table {
        let columns: [(String, DataType)]
        switch name {
        case "pg_attrdef": columns = [("oid", .int32), ("adrelid", .int32), ("adnum", .int16), ("adbin", .varchar)]
        case "pg_description": columns = [("objoid", .int32), ("classoid", .int32), ("objsubid", .int32), ("description", .varchar)]
        case "pg_inherits": columns = [("inhrelid", .int32), ("inhparent", .int32), ("inhseqno", .int32), ("inhdetachpending", .boolean)]
        case "pg_collation": columns = [("oid", .int32), ("collname", .varchar), ("collnamespace", .int32)]
        case "pg_proc": columns = [("oid", .int32), ("proname", .varchar), ("pronamespace", .int32), ("prorettype", .int32), ("prokind", .varchar)]
        case "pg_enum": columns = [("oid", .int32), ("enumtypid", .int32), ("enumsortorder", .float32), ("enumlabel", .varchar)]
        case "pg_sequence":
            columns = [
                ("seqrelid", .int32), ("seqtypid", .int32), ("seqstart", .int64), ("seqincrement", .int64), ("seqmax", .int64),
                ("seqmin", .int64), ("seqcache", .int64), ("seqcycle", .boolean),
            ]
        case "pg_depend": columns = [("classid", .int32), ("objid", .int32), ("objsubid", .int32), ("refclassid", .int32), ("refobjid", .int32), ("refobjsubid", .int32), ("deptype", .varchar)]
        case "pg_trigger": columns = [("oid", .int32), ("tgrelid", .int32), ("tgparentid", .int32), ("tgname", .varchar), ("tgfoid", .int32), ("tgtype", .int16), ("tgisinternal", .boolean), ("tgenabled", .varchar), ("tgconstraint", .int32)]
        case "pg_partitioned_table": columns = [("partrelid", .int32), ("partstrat", .varchar)]
        case "pg_policy": columns = [("oid", .int32), ("polname", .varchar), ("polrelid", .int32), ("polcmd", .varchar), ("polpermissive", .boolean), ("polroles", .list(.int32)), ("polqual", .varchar), ("polwithcheck", .varchar)]
        case "pg_statistic_ext": columns = [("oid", .int32), ("stxrelid", .int32), ("stxname", .varchar), ("stxnamespace", .int32), ("stxowner", .int32), ("stxstattarget", .int32), ("stxkeys", .list(.int16)), ("stxkind", .list(.varchar))]
        case "pg_publication": columns = [("oid", .int32), ("pubname", .varchar), ("pubowner", .int32), ("puballtables", .boolean), ("pubinsert", .boolean), ("pubupdate", .boolean), ("pubdelete", .boolean), ("pubtruncate", .boolean), ("pubviaroot", .boolean)]
        case "pg_publication_rel": columns = [("oid", .int32), ("prpubid", .int32), ("prrelid", .int32)]
        case "pg_rewrite": columns = [("oid", .int32), ("rulename", .varchar), ("ev_class", .int32), ("ev_type", .varchar), ("ev_enabled", .varchar), ("is_instead", .boolean)]
        case "pg_foreign_table": columns = [("ftrelid", .int32), ("ftserver", .int32), ("ftoptions", .varchar)]
        case "pg_event_trigger": columns = [("oid", .int32), ("evtname", .varchar), ("evtevent", .varchar), ("evtowner", .int32), ("evtfoid", .int32), ("evtenabled", .varchar)]
        case "pg_extension": columns = [("oid", .int32), ("extname", .varchar), ("extowner", .int32), ("extnamespace", .int32), ("extversion", .varchar)]
        case "pg_opclass": columns = [("oid", .int32), ("opcname", .varchar), ("opcnamespace", .int32), ("opcmethod", .int32), ("opcdefault", .boolean)]
        case "pg_tablespace": columns = [("oid", .int32), ("spcname", .varchar), ("spcowner", .int32)]
        case "pg_shdescription": columns = [("objoid", .int32), ("classoid", .int32), ("description", .varchar)]
        default: columns = [("oid", .int32), ("objoid", .int32)]
        }
        return Table(columns: columns, rows: [])
    }

    private static func informationSchema(_ name: String, catalog: Catalog, session: SessionInfo) -> Table? {
        let relations = visible(catalog, session)
        switch name {
        case "tables":
            return Table(
                columns: [("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("table_type", .varchar), ("is_insertable_into", .varchar)],
                rows: relations.filter(\.isInInformationSchema).map { relation in
                    [.string(session.database), .string(relation.schema), .string(relation.name), .string(relation.kind == .table ? "BASE TABLE" : (relation.kind == .source ? "SOURCE" : "VIEW")), .string(relation.kind == .table ? "YES" : "NO")]
                })
        case "columns":
            var rows: [[Value]] = []
            for relation in relations where relation.isInInformationSchema {
                for (index, column) in relation.columns.enumerated() {
                    var precision: Value = .null
                    var scale: Value = .null
                    switch column.type {
                    case .int16: (precision, scale) = (.int32(16), .int32(0))
                    case .int32: (precision, scale) = (.int32(32), .int32(0))
                    case .int64: (precision, scale) = (.int32(64), .int32(0))
                    case .float32: precision = .int32(24)
                    case .float64: precision = .int32(53)
                    case .decimal(let p, let sc): (precision, scale) = (p.map { .int32(Int32($0)) } ?? .null, sc.map { .int32(Int32($0)) } ?? .null)
                    default: break
                    }
                    rows.append([
                        .string(session.database), .string(relation.schema), .string(relation.name), .string(column.name),
                        .int32(Int32(index + 1)), column.defaultExpression.map(Value.string) ?? .null, .string(column.isNullable ? "YES" : "NO"),
                        .string(informationSchemaTypeName(column.type)), .string(session.database), .string("pg_catalog"), .string(udtName(column.type)),
                        .null, precision, scale, .string("NO"), .string("NEVER"), .string(relation.kind == .table ? "YES" : "NO"),
                    ])
                }
            }
            return Table(
                columns: [
                    ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("column_name", .varchar),
                    ("ordinal_position", .int32), ("column_default", .varchar), ("is_nullable", .varchar), ("data_type", .varchar),
                    ("udt_catalog", .varchar), ("udt_schema", .varchar), ("udt_name", .varchar), ("character_maximum_length", .int32),
                    ("numeric_precision", .int32), ("numeric_scale", .int32), ("is_identity", .varchar), ("is_generated", .varchar),
                    ("is_updatable", .varchar),
                ], rows: rows)
        case "table_constraints":
            // The primary keys (the only constraints besides NOT NULL).
            return Table(
                columns: [
                    ("constraint_catalog", .varchar), ("constraint_schema", .varchar), ("constraint_name", .varchar),
                    ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("constraint_type", .varchar),
                    ("is_deferrable", .varchar), ("initially_deferred", .varchar), ("enforced", .varchar),
                ],
                rows: relations.filter { !$0.primaryKey.isEmpty }.map { relation in
                    [
                        .string(session.database), .string(relation.schema), .string("\(relation.name)_pkey"), .string(session.database),
                        .string(relation.schema), .string(relation.name), .string("PRIMARY KEY"), .string("NO"), .string("NO"), .string("YES"),
                    ]
                })
        case "key_column_usage":
            return Table(
                columns: [
                    ("constraint_catalog", .varchar), ("constraint_schema", .varchar), ("constraint_name", .varchar),
                    ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("column_name", .varchar),
                    ("ordinal_position", .int32), ("position_in_unique_constraint", .int32),
                ],
                rows: relations.flatMap { relation in
                    relation.primaryKey.enumerated().map { position, column -> [Value] in
                        [
                            .string(session.database), .string(relation.schema), .string("\(relation.name)_pkey"), .string(session.database),
                            .string(relation.schema), .string(relation.name), .string(relation.columns[column].name), .int32(Int32(position + 1)), .null,
                        ]
                    }
                })
        case "views":
            return Table(
                columns: [("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("view_definition", .varchar)],
                rows: relations.filter { $0.kind == .view || $0.kind == .materializedView }.map {
                    [.string(session.database), .string($0.schema), .string($0.name), .string($0.maskedDefinition)]
                })
        case "schemata":
            return Table(
                columns: [("catalog_name", .varchar), ("schema_name", .varchar), ("schema_owner", .varchar)],
                rows: (["pg_catalog", "information_schema"] + catalog.schemas.sorted { $0.value < $1.value }.map(\.key)).map { [.string(session.database), .string($0), .string(ownerName(catalog.schemaAccess($0), catalog))] })
        default:
            return nil
        }
    }

    /// A type as `information_schema.columns.data_type` names it: the SQL standard's name, with
    /// no modifiers, and `ARRAY` for arrays.
    static func informationSchemaTypeName(_ type: DataType) -> String {
        if case .list = type { return "ARRAY" }
        return formatType(oid: type.oid, modifier: -1) ?? (type.sqlName.split(separator: "(").first.map(String.init) ?? "")
    }

    /// The OIDs Postgres gives its catalog tables, for `'pg_catalog.pg_class'::regclass`.
    static let catalogTableOIDs: [String: Int32] = [
        "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_database": 1262, "pg_attrdef": 2604,
        "pg_constraint": 2606, "pg_inherits": 2611, "pg_index": 2610, "pg_namespace": 2615, "pg_description": 2609,
        "pg_am": 2601, "pg_trigger": 2620, "pg_sequence": 2224, "pg_collation": 3456, "pg_enum": 3501,
    ]

    /// A secondary index's `pg_index` row.
    private static func indexRow(_ index: IndexDefinition, of relation: RelationDefinition) -> [Value] {
        let columns: [Int] = index.keys.map(\.column) + index.include
        // indoption: 1 for DESC, 2 for NULLS FIRST (INDOPTION_DESC, INDOPTION_NULLS_FIRST).
        let options: [Value] = index.keys.map { key in Value.int16((key.descending ? 1 : 0) | (key.nullsFirst ? 2 : 0)) }
        let keys: [Value] = columns.map { column in Value.int16(Int16(column + 1)) }
        var row: [Value] = [.int32(Int32(index.id)), .int32(Int32(relation.id)), .int16(Int16(columns.count)), .int16(Int16(index.keys.count))]
        row += [.bool(false), .bool(false), .bool(false), .bool(true), .bool(false), .bool(true), .bool(false)]
        row += [.list(keys), .list(options), .null, .null]
        row += [.list(index.keys.map { _ in Value.int32(1978) }), .list(index.keys.map { _ in Value.int32(0) }), .bool(false)]
        return row
    }

    /// A secondary index's `pg_class` row.
    private static func indexClassRow(_ index: IndexDefinition, namespace: Int) -> [Value] {
        var row: [Value] = [.int32(Int32(index.id)), .string(index.name), .int32(Int32(namespace)), .int32(0), .int32(10), .int32(403), .string("i")]
        row += [.int16(Int16(index.keys.count + index.include.count)), .int16(0), .bool(false), .bool(false), .bool(false), .bool(false)]
        row += [.bool(false), .bool(false), .int32(0), .int32(0), .string("p"), .string("n"), .int32(0), .null, .null, .null]
        row += [.float32(-1), .int32(0), .bool(false), .bool(false)]
        return row
    }

    static func primaryKeyIndexOID(_ relation: RelationDefinition) -> Int { 1_000_000 + relation.id * 2 }

    /// `atttypmod`: numeric(p,s) packs ((p << 16) | s) + 4, as Postgres does; -1 otherwise.
    static func typeModifier(_ type: DataType) -> Int32 {
        if case .decimal(let precision?, let scale) = type { return Int32((precision << 16) | (scale ?? 0)) + 4 }
        return -1
    }

    static func udtName(_ type: DataType) -> String {
        builtinTypes.first { $0.oid == type.oid }?.name ?? "unknown"
    }

    struct BuiltinType {
        var oid: Int32
        var name: String
        var length: Int16
        var category: String
        var element: Int32 = 0
        var array: Int32 = 0
    }

    static let builtinTypes: [BuiltinType] = [
        BuiltinType(oid: 16, name: "bool", length: 1, category: "B", array: 1000),
        BuiltinType(oid: 17, name: "bytea", length: -1, category: "U", array: 1001),
        BuiltinType(oid: 18, name: "char", length: 1, category: "S"),
        BuiltinType(oid: 19, name: "name", length: 64, category: "S"),
        BuiltinType(oid: 20, name: "int8", length: 8, category: "N", array: 1016),
        BuiltinType(oid: 21, name: "int2", length: 2, category: "N", array: 1005),
        BuiltinType(oid: 23, name: "int4", length: 4, category: "N", array: 1007),
        BuiltinType(oid: 25, name: "text", length: -1, category: "S", array: 1009),
        BuiltinType(oid: 26, name: "oid", length: 4, category: "N"),
        BuiltinType(oid: 114, name: "json", length: -1, category: "U"),
        BuiltinType(oid: 700, name: "float4", length: 4, category: "N", array: 1021),
        BuiltinType(oid: 701, name: "float8", length: 8, category: "N", array: 1022),
        BuiltinType(oid: 1043, name: "varchar", length: -1, category: "S", array: 1015),
        BuiltinType(oid: 1082, name: "date", length: 4, category: "D", array: 1182),
        BuiltinType(oid: 1083, name: "time", length: 8, category: "D", array: 1183),
        BuiltinType(oid: 1114, name: "timestamp", length: 8, category: "D", array: 1115),
        BuiltinType(oid: 1184, name: "timestamptz", length: 8, category: "D", array: 1185),
        BuiltinType(oid: 1186, name: "interval", length: 16, category: "T", array: 1187),
        BuiltinType(oid: 1700, name: "numeric", length: -1, category: "N", array: 1231),
        BuiltinType(oid: 3802, name: "jsonb", length: -1, category: "U", array: 3807),
        BuiltinType(oid: 2249, name: "record", length: -1, category: "P"),
    ]

    /// The name `format_type` gives a type OID and modifier.
    static func formatType(oid: Int32, modifier: Int32) -> String? {
        switch oid {
        case 16: return "boolean"
        case 17: return "bytea"
        case 20: return "bigint"
        case 21: return "smallint"
        case 23: return "integer"
        case 25: return "text"
        case 26: return "oid"
        case 700: return "real"
        case 701: return "double precision"
        case 1043: return "character varying"
        case 1082: return "date"
        case 1083: return "time without time zone"
        case 1114: return "timestamp without time zone"
        case 1184: return "timestamp with time zone"
        case 1186: return "interval"
        case 1700:
            if modifier >= 4 {
                let packed = modifier - 4
                return "numeric(\(packed >> 16),\(packed & 0xFFFF))"
            }
            return "numeric"
        case 3802: return "jsonb"
        case 114: return "json"
        case 2249: return "record"
        default: return builtinTypes.first { $0.oid == oid }?.name
        }
    }
}

extension RelationDefinition {
    /// Whether `information_schema.tables` and `.columns` list the relation: as in PostgreSQL,
    /// tables and views but not materialized views (clients read those from `pg_class` and
    /// `pg_attribute`, and would otherwise see their columns twice), nor sinks.
    fileprivate var isInInformationSchema: Bool { kind != .sink && kind != .materializedView }
}
