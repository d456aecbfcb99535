import SluiceCore

/// The data files of one partition that a compaction rewrites together into new files.
package struct IcebergCompactionGroup: Hashable, Sendable {
    package var partition: IcebergPartitionKey
    /// The files to rewrite, in manifest order.
    package var dataFiles: [IcebergLiveFile]
    /// For each of `dataFiles`, the delete files that apply to it.
    package var deletes: [[IcebergLiveFile]]

    package var inputBytes: Int64 { dataFiles.reduce(0) { $0 + $1.file.fileSizeInBytes } }
}

/// What a compaction rewrites, planned from one snapshot (Java's `RewriteDataFiles` with the
/// bin-pack strategy, one group per partition):
/// - files are grouped by partition (spec id and partition tuple);
/// - in a group, a file is rewritten when it is smaller than 3/4 of the target size (Java's
///   `min-file-size-bytes` default) or when delete files apply to it, so the new files need none;
/// - a group is rewritten when it has at least `minInputFiles` such files, or when deletes
///   apply to any of them (then even one file is worth rewriting).
package struct IcebergCompactionPlan: Hashable, Sendable {
    package var groups: [IcebergCompactionGroup]
    package var targetFileSizeBytes: Int64

    package var isEmpty: Bool { groups.isEmpty }

    /// Plans from `files`, the live files of the snapshot compaction starts from.
    package init(files: IcebergSnapshotFiles, unpartitionedSpecIDs: Set<Int32>, targetFileSizeBytes: Int64, minInputFiles: Int) {
        self.targetFileSizeBytes = targetFileSizeBytes
        let smallFileLimit = targetFileSizeBytes / 4 * 3
        let matcher = IcebergDeleteMatcher(deleteFiles: files.deleteFiles, unpartitionedSpecIDs: unpartitionedSpecIDs)
        var order: [IcebergPartitionKey] = []
        var byPartition: [IcebergPartitionKey: IcebergCompactionGroup] = [:]
        for data in files.dataFiles {
            let deletes = matcher.deletes(applyingTo: data)
            guard data.file.fileSizeInBytes < smallFileLimit || !deletes.isEmpty else { continue }
            let key = data.partition
            if byPartition[key] == nil {
                order.append(key)
                byPartition[key] = IcebergCompactionGroup(partition: key, dataFiles: [], deletes: [])
            }
            byPartition[key]?.dataFiles.append(data)
            byPartition[key]?.deletes.append(deletes)
        }
        groups = order.compactMap { key in
            guard let group = byPartition[key] else { return nil }
            let hasDeletes = group.deletes.contains { !$0.isEmpty }
            // One file without deletes would only be copied.
            guard hasDeletes || (group.dataFiles.count >= max(2, minInputFiles)) else { return nil }
            return group
        }
    }

    /// The paths of the data files the plan rewrites.
    package var rewrittenPaths: Set<String> { Set(groups.flatMap { $0.dataFiles.map(\.path) }) }
}

extension IcebergCompactionPlan {
    /// The delete files that no longer apply to any live data file once the plan's files are
    /// replaced: their deletes are applied in the new files (or they applied to nothing left).
    ///
    /// A position delete file is kept while a data file outside the rewrite could hold one of
    /// its rows: by the spec's rules when its contents were not read, or when it names that
    /// file's path. An equality delete file is kept while a data file outside the rewrite is
    /// older and in its scope. Kept delete files stay correct: the new files carry the starting
    /// snapshot's sequence number, which no delete present at the start is newer than (equality
    /// deletes need a strictly newer one).
    ///
    /// - Parameter positionsRead: for each position delete file read during the rewrite, the
    ///   data file paths it names.
    package func removableDeleteFiles(files: IcebergSnapshotFiles, unpartitionedSpecIDs: Set<Int32>,
                                      positionsRead: [String: Set<String>]) -> [IcebergLiveFile] {
        let rewritten = rewrittenPaths
        var remainingByPartition: [IcebergPartitionKey: [IcebergLiveFile]] = [:]
        var remaining: [IcebergLiveFile] = []
        for data in files.dataFiles where !rewritten.contains(data.path) {
            remainingByPartition[data.partition, default: []].append(data)
            remaining.append(data)
        }
        var result: [IcebergLiveFile] = []
        for delete in files.deleteFiles {
            let isGlobal = delete.file.content == .equalityDeletes && unpartitionedSpecIDs.contains(delete.partitionSpecID)
            let candidates = isGlobal ? remaining : remainingByPartition[delete.partition] ?? []
            let named = delete.file.content == .positionDeletes ? positionsRead[delete.path] : nil
            let stillApplies = candidates.contains { data in
                guard IcebergDeleteMatcher.applies(delete, to: data) else { return false }
                return named.map { $0.contains(data.path) } ?? true
            }
            if !stillApplies { result.append(delete) }
        }
        return result
    }
}
