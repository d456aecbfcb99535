import SluiceCore
import SluiceFormats

/// New data files of one partition spec, to be listed in one new manifest.
struct IcebergAddedFiles {
    var specID: Int32
    /// The partition type of the manifests of that spec (from a manifest that lists a rewritten file).
    var partitionType: [IcebergManifestPartitionField]
    var files: [IcebergDataFile]
}

/// A `replace` commit whose files are written: its requirements and updates, what it wrote
/// (deleted again if the commit loses), and its counts.
struct IcebergPreparedReplace: Sendable {
    var requirements: [IcebergTableRequirement]
    var updates: [IcebergTableUpdate]
    var writtenFiles: [String]
    var result: IcebergCompactionResult

    /// Best effort: a file that cannot be deleted is left for orphan cleanup.
    func deleteWrittenFiles(_ fileIO: any FileIO) {
        for path in writtenFiles { try? fileIO.delete(path) }
    }

    /// Writes the manifests and manifest list of a snapshot that replaces `rewritten` (and
    /// removes `removedDeletes`) with `added`, based on `snapshot`; appends each file it writes
    /// to `written`.
    ///
    /// Manifests (Iceberg spec, "Manifests", "Snapshots"): one new manifest per spec lists the
    /// new files as ADDED with the starting snapshot's data sequence number; each manifest that
    /// lists a removed file is rewritten with it DELETED (by the new snapshot) and its other
    /// live entries EXISTING, sequence numbers and snapshot ids kept; entries an earlier
    /// snapshot deleted are dropped, as Java drops them; other manifests are reused as they are.
    static func write(
        metadata: IcebergTableMetadata, snapshot: IcebergSnapshot, files: IcebergSnapshotFiles, rewritten: [IcebergLiveFile],
        removedDeletes: [IcebergLiveFile], added: [IcebergAddedFiles], tableLocation: String, runID: String, timestampMs: Int64,
        fileIO: any FileIO, written: inout [String]
    ) throws(SluiceError) -> IcebergPreparedReplace {
        guard let schema = metadata.currentSchema else { throw SluiceError(.dataCorrupted, "the iceberg table has no current schema") }
        let snapshotID = IcebergSnapshot.newSnapshotID()
        let sequenceNumber = metadata.nextSequenceNumber
        let schemaJSON = schema.json.text
        let removedPaths = Set(rewritten.map(\.path)).union(removedDeletes.map(\.path))
        var manifestNumber = 0
        func nextManifestPath() -> String {
            manifestNumber += 1
            return "\(tableLocation)/metadata/\(runID)-m\(manifestNumber - 1).avro"
        }
        func specJSON(_ specID: Int32, fallback: String?) -> String {
            if let spec = metadata.partitionSpecs.first(where: { $0.specID == Int(specID) }) {
                return JSONDocument.array(spec.fields.map(\.json)).text
            }
            return fallback ?? "[]"
        }

        var newManifests: [IcebergManifestFile] = []
        for group in Dictionary(grouping: added, by: \.specID).sorted(by: { $0.key < $1.key }) {
            let addedFiles = group.value.flatMap(\.files)
            guard !addedFiles.isEmpty, let partitionType = group.value.first?.partitionType else { continue }
            var writer = try IcebergManifestWriter(
                partitionType: partitionType, content: .data, tableSchemaJSON: schemaJSON, schemaID: Int32(truncatingIfNeeded: schema.schemaID),
                partitionSpecJSON: specJSON(group.key, fallback: nil), partitionSpecID: group.key)
            for file in addedFiles {
                try writer.append(IcebergManifestEntry(status: .added, sequenceNumber: snapshot.sequenceNumber, dataFile: file))
            }
            let path = nextManifestPath()
            let (bytes, manifest) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
            try fileIO.write(path, bytes)
            written.append(path)
            newManifests.append(manifest)
        }

        var carried: [IcebergManifestFile] = []
        for manifestFile in files.manifests {
            guard let manifest = files.contents[manifestFile.manifestPath],
                  manifest.entries.contains(where: { $0.status != .deleted && removedPaths.contains($0.dataFile.filePath) }) else {
                carried.append(manifestFile)
                continue
            }
            var writer = try IcebergManifestWriter(
                partitionType: manifest.partitionType, content: manifestFile.content, tableSchemaJSON: manifest.schemaJSON ?? schemaJSON,
                schemaID: manifest.schemaID ?? Int32(truncatingIfNeeded: schema.schemaID),
                partitionSpecJSON: manifest.partitionSpecJSON ?? specJSON(manifestFile.partitionSpecID, fallback: nil),
                partitionSpecID: manifestFile.partitionSpecID)
            for entry in manifest.entries where entry.status != .deleted {
                guard let entrySequence = entry.sequenceNumber else {
                    throw SluiceError(.dataCorrupted, "manifest \"\(manifestFile.manifestPath)\" lists \"\(entry.dataFile.filePath)\" without a sequence number")
                }
                let isRemoved = removedPaths.contains(entry.dataFile.filePath)
                try writer.append(IcebergManifestEntry(
                    status: isRemoved ? .deleted : .existing, snapshotID: isRemoved ? snapshotID : entry.snapshotID ?? manifestFile.addedSnapshotID,
                    sequenceNumber: entrySequence, fileSequenceNumber: entry.fileSequenceNumber ?? entrySequence, dataFile: entry.dataFile))
            }
            let path = nextManifestPath()
            let (bytes, rewrittenFile) = writer.finish(path: path, snapshotID: snapshotID, sequenceNumber: sequenceNumber)
            try fileIO.write(path, bytes)
            written.append(path)
            carried.append(rewrittenFile)
        }

        let listPath = "\(tableLocation)/metadata/snap-\(snapshotID)-1-\(runID).avro"
        try fileIO.write(listPath, try IcebergManifestList.write(
            newManifests + carried, snapshotID: snapshotID, parentSnapshotID: snapshot.snapshotID, sequenceNumber: sequenceNumber))
        written.append(listPath)

        let addedFiles = added.flatMap(\.files)
        var result = IcebergCompactionResult(outcome: .committed(snapshotID: snapshotID))
        result.rewrittenDataFiles = rewritten.count
        result.addedDataFiles = addedFiles.count
        result.removedDeleteFiles = removedDeletes.count
        result.rewrittenBytes = rewritten.reduce(0) { $0 + $1.file.fileSizeInBytes }
        result.addedBytes = addedFiles.reduce(0) { $0 + $1.fileSizeInBytes }
        result.rewrittenRecords = rewritten.reduce(0) { $0 + $1.file.recordCount }
        result.addedRecords = addedFiles.reduce(0) { $0 + $1.recordCount }
        let summary = replaceSummary(result: result, files: files, removedDeletes: removedDeletes, rewritten: rewritten, added: addedFiles)
        let commit = metadata.snapshotCommit(snapshotID: snapshotID, manifestList: listPath, operation: "replace", summary: summary,
                                             timestampMs: timestampMs)
        return IcebergPreparedReplace(requirements: commit.requirements, updates: commit.updates, writtenFiles: written, result: result)
    }

    /// The snapshot summary Java writes for a rewrite: what changed, and the table's totals after it.
    private static func replaceSummary(result: IcebergCompactionResult, files: IcebergSnapshotFiles, removedDeletes: [IcebergLiveFile],
                                       rewritten: [IcebergLiveFile], added: [IcebergDataFile]) -> [String: String] {
        let removedPaths = Set(rewritten.map(\.path)).union(removedDeletes.map(\.path))
        let remainingData = files.dataFiles.filter { !removedPaths.contains($0.path) }.map(\.file) + added
        let remainingDeletes = files.deleteFiles.filter { !removedPaths.contains($0.path) }.map(\.file)
        func records(_ files: [IcebergDataFile], _ content: IcebergFileContent) -> Int64 {
            files.filter { $0.content == content }.reduce(0) { $0 + $1.recordCount }
        }
        let removedDeleteFiles = removedDeletes.map(\.file)
        let changedPartitions = Set(rewritten.map(\.partition)).union(removedDeletes.map(\.partition))
        let all = remainingData + remainingDeletes
        return [
            "added-data-files": String(result.addedDataFiles),
            "deleted-data-files": String(result.rewrittenDataFiles),
            "added-records": String(result.addedRecords),
            "deleted-records": String(result.rewrittenRecords),
            "added-files-size": String(result.addedBytes),
            "removed-files-size": String(result.rewrittenBytes + removedDeleteFiles.reduce(0) { $0 + $1.fileSizeInBytes }),
            "removed-delete-files": String(removedDeleteFiles.count),
            "removed-position-delete-files": String(removedDeleteFiles.filter { $0.content == .positionDeletes }.count),
            "removed-equality-delete-files": String(removedDeleteFiles.filter { $0.content == .equalityDeletes }.count),
            "removed-position-deletes": String(records(removedDeleteFiles, .positionDeletes)),
            "removed-equality-deletes": String(records(removedDeleteFiles, .equalityDeletes)),
            "changed-partition-count": String(changedPartitions.count),
            "total-data-files": String(remainingData.count),
            "total-delete-files": String(remainingDeletes.count),
            "total-records": String(records(remainingData, .data)),
            "total-files-size": String(all.reduce(0) { $0 + $1.fileSizeInBytes }),
            "total-position-deletes": String(records(remainingDeletes, .positionDeletes)),
            "total-equality-deletes": String(records(remainingDeletes, .equalityDeletes)),
        ]
    }
}
