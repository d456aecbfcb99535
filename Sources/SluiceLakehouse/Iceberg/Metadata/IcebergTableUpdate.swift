import SluiceCore

/// One change of a commit, as the REST catalog's `TableUpdate` (`action`) names it.
package enum IcebergTableUpdate: Hashable, Sendable {
    case assignUUID(String)
    case upgradeFormatVersion(Int)
    /// `lastColumnID` is the deprecated `last-column-id` some clients still send.
    case addSchema(IcebergSchema, lastColumnID: Int?)
    /// `-1` means the schema added last in this commit.
    case setCurrentSchema(Int)
    case addSpec(IcebergPartitionSpec)
    /// `-1` means the spec added last in this commit.
    case setDefaultSpec(Int)
    case addSortOrder(IcebergSortOrder)
    /// `-1` means the sort order added last in this commit.
    case setDefaultSortOrder(Int)
    case addSnapshot(IcebergSnapshot)
    case setSnapshotRef(name: String, ref: IcebergSnapshotRef)
    case removeSnapshots([Int64])
    case removeSnapshotRef(String)
    case setLocation(String)
    case setProperties([String: String])
    case removeProperties([String])

    package var json: JSONDocument {
        switch self {
        case .assignUUID(let uuid):
            return .object(["action": .string("assign-uuid"), "uuid": .string(uuid)])
        case .upgradeFormatVersion(let version):
            return .object(["action": .string("upgrade-format-version"), "format-version": .int(Int64(version))])
        case .addSchema(let schema, let lastColumnID):
            return .object(["action": .string("add-schema"), "schema": schema.json, "last-column-id": lastColumnID.map { .int(Int64($0)) }])
        case .setCurrentSchema(let id):
            return .object(["action": .string("set-current-schema"), "schema-id": .int(Int64(id))])
        case .addSpec(let spec):
            return .object(["action": .string("add-spec"), "spec": spec.json])
        case .setDefaultSpec(let id):
            return .object(["action": .string("set-default-spec"), "spec-id": .int(Int64(id))])
        case .addSortOrder(let order):
            return .object(["action": .string("add-sort-order"), "sort-order": order.json])
        case .setDefaultSortOrder(let id):
            return .object(["action": .string("set-default-sort-order"), "sort-order-id": .int(Int64(id))])
        case .addSnapshot(let snapshot):
            return .object(["action": .string("add-snapshot"), "snapshot": snapshot.json])
        case .setSnapshotRef(let name, let ref):
            guard case .object(let refMembers) = ref.json else { return .null }
            return .object([JSONDocument.Member("action", .string("set-snapshot-ref")), JSONDocument.Member("ref-name", .string(name))] + refMembers)
        case .removeSnapshots(let ids):
            return .object(["action": .string("remove-snapshots"), "snapshot-ids": .array(ids.map { .int($0) })])
        case .removeSnapshotRef(let name):
            return .object(["action": .string("remove-snapshot-ref"), "ref-name": .string(name)])
        case .setLocation(let location):
            return .object(["action": .string("set-location"), "location": .string(location)])
        case .setProperties(let updates):
            return .object(["action": .string("set-properties"), "updates": .stringMap(updates)])
        case .removeProperties(let removals):
            return .object(["action": .string("remove-properties"), "removals": .array(removals.map { .string($0) })])
        }
    }

    /// - Throws: `22023` for a malformed update, `0A000` for an action this catalog does not apply.
    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "table update")
        switch try object.string("action") {
        case "assign-uuid": self = .assignUUID(try object.string("uuid"))
        case "upgrade-format-version": self = .upgradeFormatVersion(try object.int("format-version"))
        case "add-schema":
            self = .addSchema(try IcebergSchema(json: object.value("schema") ?? .null), lastColumnID: try object.optionalInt("last-column-id"))
        case "set-current-schema": self = .setCurrentSchema(try object.int("schema-id"))
        case "add-spec": self = .addSpec(try IcebergPartitionSpec(json: object.value("spec") ?? .null))
        case "set-default-spec": self = .setDefaultSpec(try object.int("spec-id"))
        case "add-sort-order": self = .addSortOrder(try IcebergSortOrder(json: object.value("sort-order") ?? .null))
        case "set-default-sort-order": self = .setDefaultSortOrder(try object.int("sort-order-id"))
        case "add-snapshot": self = .addSnapshot(try IcebergSnapshot(json: object.value("snapshot") ?? .null))
        case "set-snapshot-ref": self = .setSnapshotRef(name: try object.string("ref-name"), ref: try IcebergSnapshotRef(fields: object))
        case "remove-snapshots": self = .removeSnapshots(try object.int64Array("snapshot-ids"))
        case "remove-snapshot-ref": self = .removeSnapshotRef(try object.string("ref-name"))
        case "set-location": self = .setLocation(try object.string("location"))
        case "set-properties": self = .setProperties(try object.stringMap("updates"))
        case "remove-properties": self = .removeProperties(try object.stringArray("removals"))
        case let other: throw SluiceError(.featureNotSupported, "table update \"\(other)\" is not supported")
        }
    }
}

/// A condition a commit states about the table it read (REST `TableRequirement`, `type`).
/// A failed requirement is a commit conflict (`40001`, HTTP 409).
package enum IcebergTableRequirement: Hashable, Sendable {
    /// The table must not exist yet (a create transaction).
    case assertCreate
    case assertTableUUID(String)
    /// The ref must point at `snapshotID`; nil means the ref must not exist.
    case assertRefSnapshotID(ref: String, snapshotID: Int64?)
    case assertLastAssignedFieldID(Int)
    case assertCurrentSchemaID(Int)
    case assertLastAssignedPartitionID(Int)
    case assertDefaultSpecID(Int)
    case assertDefaultSortOrderID(Int)

    /// Checks the requirement against the table's current metadata (nil: the table does not exist).
    package func check(against metadata: IcebergTableMetadata?) throws(SluiceError) {
        guard let metadata else {
            if case .assertCreate = self { return }
            throw IcebergCatalogError.commitConflict("requirement \(name) failed: the table does not exist")
        }
        func fail(_ detail: String) -> SluiceError {
            IcebergCatalogError.commitConflict("requirement \(name) failed: \(detail)")
        }
        switch self {
        case .assertCreate:
            throw fail("the table already exists")
        case .assertTableUUID(let uuid):
            guard uuid.lowercased() == metadata.tableUUID else { throw fail("table uuid is \(metadata.tableUUID), expected \(uuid)") }
        case .assertRefSnapshotID(let ref, let snapshotID):
            let current = metadata.refs[ref]?.snapshotID
            guard current == snapshotID else {
                throw fail("branch \(ref) is at \(current.map(String.init) ?? "no snapshot"), expected \(snapshotID.map(String.init) ?? "no snapshot")")
            }
        case .assertLastAssignedFieldID(let id):
            guard metadata.lastColumnID == id else { throw fail("last assigned field id is \(metadata.lastColumnID), expected \(id)") }
        case .assertCurrentSchemaID(let id):
            guard metadata.currentSchemaID == id else { throw fail("current schema id is \(metadata.currentSchemaID), expected \(id)") }
        case .assertLastAssignedPartitionID(let id):
            guard metadata.lastPartitionID == id else { throw fail("last assigned partition id is \(metadata.lastPartitionID), expected \(id)") }
        case .assertDefaultSpecID(let id):
            guard metadata.defaultSpecID == id else { throw fail("default spec id is \(metadata.defaultSpecID), expected \(id)") }
        case .assertDefaultSortOrderID(let id):
            guard metadata.defaultSortOrderID == id else { throw fail("default sort order id is \(metadata.defaultSortOrderID), expected \(id)") }
        }
    }

    package var name: String {
        switch self {
        case .assertCreate: "assert-create"
        case .assertTableUUID: "assert-table-uuid"
        case .assertRefSnapshotID: "assert-ref-snapshot-id"
        case .assertLastAssignedFieldID: "assert-last-assigned-field-id"
        case .assertCurrentSchemaID: "assert-current-schema-id"
        case .assertLastAssignedPartitionID: "assert-last-assigned-partition-id"
        case .assertDefaultSpecID: "assert-default-spec-id"
        case .assertDefaultSortOrderID: "assert-default-sort-order-id"
        }
    }

    package var json: JSONDocument {
        let type = JSONDocument.Member("type", .string(name))
        switch self {
        case .assertCreate: return .object([type])
        case .assertTableUUID(let uuid): return .object([type, .init("uuid", .string(uuid))])
        case .assertRefSnapshotID(let ref, let snapshotID):
            return .object([type, .init("ref", .string(ref)), .init("snapshot-id", snapshotID.map { .int($0) } ?? .null)])
        case .assertLastAssignedFieldID(let id): return .object([type, .init("last-assigned-field-id", .int(Int64(id)))])
        case .assertCurrentSchemaID(let id): return .object([type, .init("current-schema-id", .int(Int64(id)))])
        case .assertLastAssignedPartitionID(let id): return .object([type, .init("last-assigned-partition-id", .int(Int64(id)))])
        case .assertDefaultSpecID(let id): return .object([type, .init("default-spec-id", .int(Int64(id)))])
        case .assertDefaultSortOrderID(let id): return .object([type, .init("default-sort-order-id", .int(Int64(id)))])
        }
    }

    package init(json: JSONDocument) throws(SluiceError) {
        let object = try IcebergJSONFields(json, context: "table requirement")
        switch try object.string("type") {
        case "assert-create": self = .assertCreate
        case "assert-table-uuid": self = .assertTableUUID(try object.string("uuid"))
        case "assert-ref-snapshot-id": self = .assertRefSnapshotID(ref: try object.string("ref"), snapshotID: try object.optionalInt64("snapshot-id"))
        case "assert-last-assigned-field-id": self = .assertLastAssignedFieldID(try object.int("last-assigned-field-id"))
        case "assert-current-schema-id": self = .assertCurrentSchemaID(try object.int("current-schema-id"))
        case "assert-last-assigned-partition-id": self = .assertLastAssignedPartitionID(try object.int("last-assigned-partition-id"))
        case "assert-default-spec-id": self = .assertDefaultSpecID(try object.int("default-spec-id"))
        case "assert-default-sort-order-id": self = .assertDefaultSortOrderID(try object.int("default-sort-order-id"))
        case let other: throw IcebergCatalogError.badRequest("unknown table requirement \"\(other)\"")
        }
    }
}
