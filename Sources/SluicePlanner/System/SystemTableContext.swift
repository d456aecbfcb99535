import SluiceCore

/// What a system table reads its rows from (``SystemTable/rows(in:)``): the catalog, the session
/// that asks, and the running system; with what several tables share.
struct SystemTableContext {
    let catalog: Catalog
    let session: SessionInfo

    /// The running system: streaming jobs, connectors, checkpoints, memory.
    var reader: any SystemReader { catalog.systemReader }

    /// The relations the session's user may see (a superuser: all), in creation order.
    var visibleRelations: [RelationDefinition] {
        catalog.visibleRelations(to: catalog.role(named: session.user))
    }

    /// The ids of ``visibleRelations``: the running jobs, connectors and sinks the user may see.
    var visibleRelationIDs: Set<Int> {
        Set(visibleRelations.map(\.id))
    }

    /// The `pg_namespace` oid of `relation`'s schema.
    func namespaceOID(of relation: RelationDefinition) -> Int32 {
        Int32(catalog.schemas[relation.schema] ?? Int(SystemCatalog.publicNamespaceOID))
    }

    /// `relacl` and `nspacl`: Postgres's `aclitem[]`, as text items (NULL: the defaults).
    func aclValue(_ access: ObjectAccess, _ kind: PrivilegeObjectKind) -> Value {
        access.aclItems(kind: kind) { catalog.role(oid: $0)?.name ?? "" }.map { .list($0.map(Value.string)) } ?? .null
    }

    /// The name of the owner of an object with `access` (`root` when the role is gone).
    func ownerName(_ access: ObjectAccess) -> String {
        catalog.role(oid: access.owner)?.name ?? RoleDefinition.root.name
    }
}

extension SystemCatalog {
    static let publicNamespaceOID: Int32 = 2200
    static let catalogNamespaceOID: Int32 = 11
    static let informationSchemaOID: Int32 = 13000

    /// The OIDs Postgres gives its catalog tables, for `'pg_catalog.pg_class'::regclass`.
    static let catalogTableOIDs: [String: Int32] = [
        "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255, "pg_class": 1259, "pg_database": 1262, "pg_attrdef": 2604,
        "pg_constraint": 2606, "pg_inherits": 2611, "pg_index": 2610, "pg_namespace": 2615, "pg_description": 2609,
        "pg_am": 2601, "pg_trigger": 2620, "pg_sequence": 2224, "pg_collation": 3456, "pg_enum": 3501,
    ]

    /// The oid of a table's primary key index (`<table>_pkey` in `pg_class` and `pg_index`); its
    /// `pg_constraint` row's is the next.
    static func primaryKeyIndexOID(_ relation: RelationDefinition) -> Int { 1_000_000 + relation.id * 2 }
}

extension RelationDefinition {
    /// Whether `information_schema.tables` and `.columns` list the relation: as in PostgreSQL,
    /// tables and views but not materialized views (clients read those from `pg_class` and
    /// `pg_attribute`, and would otherwise see their columns twice), nor sinks.
    var isInInformationSchema: Bool { kind != .sink && kind != .materializedView }
}
