import SluiceCore

// Applying REST `TableUpdate`s, following Java's `TableMetadata.Builder`: schemas, specs and
// sort orders equal to an existing one are reused rather than duplicated; `-1` ids mean "the
// one added last in this commit"; `last-updated-ms` becomes the added snapshot's timestamp when
// a commit moves a branch to it, otherwise the commit time; `main` moves append to the snapshot log.

extension IcebergTableMetadata {
    /// The starting point of a create transaction: no schema, spec or sort order yet; the
    /// commit's updates add them. Ids are -1 so "set current to -1" must follow an add.
    package static func empty(tableUUID: String, location: String, now: Int64) -> IcebergTableMetadata {
        var metadata = IcebergTableMetadata(tableUUID: tableUUID, location: location, schema: IcebergSchema(fields: []), lastUpdatedMs: now)
        metadata.schemas = []
        metadata.currentSchemaID = -1
        metadata.partitionSpecs = []
        metadata.defaultSpecID = -1
        metadata.lastPartitionID = IcebergPartitionSpec.partitionFieldIDStart - 1
        metadata.sortOrders = []
        metadata.defaultSortOrderID = -1
        metadata.lastColumnID = 0
        return metadata
    }

    /// The metadata after `updates`, in order; `now` (ms since the epoch) stamps the change.
    ///
    /// - Throws: `22023` for an update that contradicts the metadata (unknown schema id, a
    ///   snapshot that already exists); `40001` for a snapshot whose sequence number is not
    ///   newer than the table's (a concurrent commit got there first); `0A000` for a format
    ///   version above 2.
    package func applying(_ updates: [IcebergTableUpdate], now: Int64) throws(SluiceError) -> IcebergTableMetadata {
        var builder = IcebergMetadataBuilder(metadata: self)
        for update in updates { try builder.apply(update, now: now) }
        return builder.finish(now: now)
    }

    /// The metadata with `previousFile` (the file it replaces) added to `metadata-log`, trimmed
    /// to `write.metadata.previous-versions-max` entries (default 100) as Java does.
    package func recordingPreviousMetadataFile(_ previousFile: String, previousLastUpdatedMs: Int64) -> IcebergTableMetadata {
        var copy = self
        copy.metadataLog.append(IcebergMetadataLogEntry(metadataFile: previousFile, timestampMs: previousLastUpdatedMs))
        let limit = max(1, Int(properties["write.metadata.previous-versions-max"] ?? "") ?? 100)
        if copy.metadataLog.count > limit { copy.metadataLog.removeFirst(copy.metadataLog.count - limit) }
        return copy
    }
}

/// The mutable state of one commit's application.
private struct IcebergMetadataBuilder {
    var metadata: IcebergTableMetadata
    var changed = false
    var lastAddedSchemaID: Int?
    var lastAddedSpecID: Int?
    var lastAddedSortOrderID: Int?
    var addedSnapshotIDs: Set<Int64> = []
    /// Set when the commit moved a branch to a snapshot it added.
    var lastUpdatedMs: Int64?

    init(metadata: IcebergTableMetadata) {
        self.metadata = metadata
    }

    func invalid(_ message: String) -> SluiceError { IcebergCatalogError.badRequest(message) }

    mutating func apply(_ update: IcebergTableUpdate, now: Int64) throws(SluiceError) {
        switch update {
        case .assignUUID(let uuid):
            guard uuid.lowercased() != metadata.tableUUID else { return }
            metadata.tableUUID = uuid.lowercased()
        case .upgradeFormatVersion(let version):
            guard version <= IcebergTableMetadata.supportedFormatVersion else {
                throw SluiceError(.featureNotSupported, "Iceberg table format version \(version) is not supported")
            }
            guard version >= metadata.formatVersion else { throw invalid("cannot downgrade v\(metadata.formatVersion) table to v\(version)") }
            guard version != metadata.formatVersion else { return }
            metadata.formatVersion = version
        case .addSchema(var schema, let lastColumnID):
            metadata.lastColumnID = max(metadata.lastColumnID, lastColumnID ?? 0, schema.highestFieldID)
            if let existing = metadata.schemas.first(where: { $0.hasSameStructure(as: schema) }) {
                lastAddedSchemaID = existing.schemaID
            } else {
                schema.schemaID = (metadata.schemas.map(\.schemaID).max() ?? -1) + 1
                metadata.schemas.append(schema)
                lastAddedSchemaID = schema.schemaID
            }
        case .setCurrentSchema(let requested):
            let id = try resolve(requested, lastAdded: lastAddedSchemaID, what: "schema")
            guard metadata.schemas.contains(where: { $0.schemaID == id }) else { throw invalid("cannot set current schema to unknown schema \(id)") }
            guard id != metadata.currentSchemaID else { return }
            metadata.currentSchemaID = id
        case .addSpec(var spec):
            metadata.lastPartitionID = max(metadata.lastPartitionID, spec.lastAssignedFieldID)
            if let existing = metadata.partitionSpecs.first(where: { $0.hasSameFields(as: spec) }) {
                lastAddedSpecID = existing.specID
            } else {
                spec.specID = (metadata.partitionSpecs.map(\.specID).max() ?? -1) + 1
                metadata.partitionSpecs.append(spec)
                lastAddedSpecID = spec.specID
            }
        case .setDefaultSpec(let requested):
            let id = try resolve(requested, lastAdded: lastAddedSpecID, what: "partition spec")
            guard metadata.partitionSpecs.contains(where: { $0.specID == id }) else { throw invalid("cannot set default spec to unknown spec \(id)") }
            guard id != metadata.defaultSpecID else { return }
            metadata.defaultSpecID = id
        case .addSortOrder(var order):
            if let existing = metadata.sortOrders.first(where: { $0.fields == order.fields }) {
                lastAddedSortOrderID = existing.orderID
            } else {
                // Order id 0 is reserved for the unsorted order.
                order.orderID = order.fields.isEmpty ? 0 : max(1, (metadata.sortOrders.map(\.orderID).max() ?? 0) + 1)
                metadata.sortOrders.append(order)
                lastAddedSortOrderID = order.orderID
            }
        case .setDefaultSortOrder(let requested):
            let id = try resolve(requested, lastAdded: lastAddedSortOrderID, what: "sort order")
            guard metadata.sortOrders.contains(where: { $0.orderID == id }) else { throw invalid("cannot set default sort order to unknown order \(id)") }
            guard id != metadata.defaultSortOrderID else { return }
            metadata.defaultSortOrderID = id
        case .addSnapshot(let snapshot):
            try addSnapshot(snapshot)
        case .setSnapshotRef(let name, let ref):
            if metadata.refs[name] == ref { return }
            guard let snapshot = metadata.snapshot(id: ref.snapshotID) else {
                throw invalid("cannot set \(name) to unknown snapshot \(ref.snapshotID)")
            }
            if addedSnapshotIDs.contains(ref.snapshotID) { lastUpdatedMs = snapshot.timestampMs }
            if name == IcebergSnapshotRef.mainBranch {
                metadata.currentSnapshotID = ref.snapshotID
                metadata.snapshotLog.append(IcebergSnapshotLogEntry(snapshotID: ref.snapshotID, timestampMs: lastUpdatedMs ?? now))
            }
            metadata.refs[name] = ref
        case .removeSnapshots(let ids):
            let removed = Set(ids)
            metadata.snapshots = metadata.snapshots.compactMap { snapshot in
                guard !removed.contains(snapshot.snapshotID) else { return nil }
                var kept = snapshot
                if let parent = kept.parentSnapshotID, removed.contains(parent) { kept.parentSnapshotID = nil }
                return kept
            }
            metadata.snapshotLog.removeAll { removed.contains($0.snapshotID) }
            for (name, ref) in metadata.refs where removed.contains(ref.snapshotID) {
                metadata.refs[name] = nil
                if name == IcebergSnapshotRef.mainBranch { metadata.currentSnapshotID = nil }
            }
        case .removeSnapshotRef(let name):
            guard metadata.refs.removeValue(forKey: name) != nil else { return }
            if name == IcebergSnapshotRef.mainBranch { metadata.currentSnapshotID = nil }
        case .setLocation(let location):
            guard location != metadata.location else { return }
            metadata.location = location
        case .setProperties(let updates):
            guard !updates.isEmpty else { return }
            metadata.properties.merge(updates) { _, new in new }
        case .removeProperties(let removals):
            guard removals.contains(where: { metadata.properties[$0] != nil }) else { return }
            for key in removals { metadata.properties[key] = nil }
        }
        changed = true
    }

    mutating func addSnapshot(_ snapshot: IcebergSnapshot) throws(SluiceError) {
        guard !metadata.schemas.isEmpty, !metadata.partitionSpecs.isEmpty else {
            throw invalid("cannot add a snapshot before a schema and a partition spec")
        }
        guard metadata.snapshot(id: snapshot.snapshotID) == nil else {
            throw invalid("snapshot \(snapshot.snapshotID) already exists")
        }
        if metadata.formatVersion >= 2, snapshot.parentSnapshotID != nil, snapshot.sequenceNumber <= metadata.lastSequenceNumber {
            throw IcebergCatalogError.commitConflict(
                "snapshot sequence number \(snapshot.sequenceNumber) is not newer than the table's last sequence number \(metadata.lastSequenceNumber)")
        }
        metadata.snapshots.append(snapshot)
        metadata.lastSequenceNumber = max(metadata.lastSequenceNumber, snapshot.sequenceNumber)
        addedSnapshotIDs.insert(snapshot.snapshotID)
        lastUpdatedMs = snapshot.timestampMs
    }

    func resolve(_ requested: Int, lastAdded: Int?, what: String) throws(SluiceError) -> Int {
        guard requested == -1 else { return requested }
        guard let lastAdded else { throw invalid("cannot set the last added \(what): no \(what) was added") }
        return lastAdded
    }

    func finish(now: Int64) -> IcebergTableMetadata {
        guard changed else { return metadata }
        var result = metadata
        result.lastUpdatedMs = lastUpdatedMs ?? now
        return result
    }
}
