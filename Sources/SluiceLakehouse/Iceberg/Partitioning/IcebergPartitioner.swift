import SluiceCore
import SluiceFormats

/// Routes a sink's rows to the partitions of an Iceberg partition spec: each distinct
/// partition tuple of a chunk gets the rows that belong in its data file (Iceberg spec:
/// "Partitioning", "Partition Transforms").
///
/// ```swift
/// let partitioner = try IcebergPartitioner(spec: spec, schema: schema, sourceColumns: [2: 1])
/// for (partition, rows) in try partitioner.split(chunk) {
///     let file = "data/\(partitioner.partitionPath(partition))/\(name).parquet"
///     // write chunk.gather(rows) to `file`; its manifest entry carries `partition`
/// }
/// ```
///
/// Built once per sink and spec; it keeps no state between chunks.
package struct IcebergPartitioner: Sendable {
    package let spec: IcebergPartitionSpec
    /// The manifest partition type: ``IcebergPartitionSpec/manifestPartitionType(for:)``.
    package let partitionType: [IcebergManifestPartitionField]
    /// True when every field is `void` (or there are none): all rows share one tuple of nulls.
    package let isUnpartitioned: Bool
    let fields: [Field]

    /// A spec field resolved against the schema and the chunk layout.
    struct Field: Sendable {
        let name: String
        let transform: IcebergTransform
        let sourceType: IcebergType
        let resultType: IcebergType
        /// The chunk column holding the source; nil for `void`, which never reads it.
        let columnIndex: Int?
    }

    /// Resolves `spec` against `schema`.
    ///
    /// - Parameter sourceColumns: for each schema field id the sink writes, the index of the
    ///   chunk column that holds it.
    /// - Throws: `0A000` when a field's source column is not among the chunk's columns or its
    ///   transform does not apply to the source type (or is unknown); `42703` when a field's
    ///   source is not in `schema`.
    package init(spec: IcebergPartitionSpec, schema: IcebergSchema, sourceColumns: [Int: Int]) throws(SluiceError) {
        self.spec = spec
        isUnpartitioned = spec.isUnpartitioned
        var fields: [Field] = []
        for field in spec.fields {
            guard let source = schema.field(id: field.sourceID) else {
                throw SluiceError(.undefinedColumn, "partition field \"\(field.name)\" refers to missing source column id \(field.sourceID)")
            }
            switch field.transform {
            case .bucket(let parameter), .truncate(let parameter):
                // Parsed specs always have positive parameters; a hand-built one might not.
                guard parameter > 0 else {
                    throw SluiceError(.featureNotSupported, "partition field \"\(field.name)\" has invalid transform \(field.transform)")
                }
            default:
                break
            }
            let resultType: IcebergType
            do {
                resultType = try field.transform.resultType(for: source.type)
            } catch {
                throw SluiceError(.featureNotSupported, "partition field \"\(field.name)\": \(error.message)")
            }
            var columnIndex: Int? = nil
            if field.transform != .void {
                guard let index = sourceColumns[field.sourceID] else {
                    throw SluiceError(
                        .featureNotSupported,
                        "partition field \"\(field.name)\" needs source column \"\(source.name)\" (field id \(field.sourceID)), which the sink does not write",
                        hint: "Include the column in the sink's output or change the table's partition spec.")
                }
                columnIndex = index
            }
            fields.append(Field(name: field.name, transform: field.transform, sourceType: source.type, resultType: resultType, columnIndex: columnIndex))
        }
        self.fields = fields
        partitionType = try spec.manifestPartitionType(for: schema)
    }

    /// The rows of each distinct partition tuple in `chunk`: tuples in order of first
    /// appearance, each tuple's rows in chunk order, the tuple in the manifest's Avro form.
    /// An empty chunk has no groups; an unpartitioned spec gives one group of every row.
    ///
    /// - Complexity: O(rows × fields): each field's transform runs column-wise over the
    ///   chunk (typed loops for integer, date and timestamp sources and string and binary
    ///   identity, truncate and bucket; value by value for the other types), then rows are
    ///   grouped through a hash table keyed by a 64-bit hash of the tuple.
    /// - Throws: `22023`/`42804` for a value the transform cannot take (a column whose type
    ///   does not match its source field), `22003` for one out of range, `XX000` when a
    ///   source column index is beyond the chunk's columns.
    package func split(_ chunk: Chunk) throws(SluiceError) -> [(partition: [AvroValue], rows: [Int])] {
        guard chunk.count > 0 else { return [] }
        if isUnpartitioned {
            return [(partition: Array(repeating: .null, count: fields.count), rows: Array(0 ..< chunk.count))]
        }
        var keys: [IcebergPartitionKeys] = []
        keys.reserveCapacity(fields.count)
        for field in fields {
            guard let columnIndex = field.columnIndex else {
                keys.append(.allNull)
                continue
            }
            guard columnIndex >= 0, columnIndex < chunk.columnCount else {
                throw SluiceError(.internalError, "partition source column \(columnIndex) is beyond the chunk's \(chunk.columnCount) columns")
            }
            keys.append(try IcebergPartitionKeys(field, column: chunk.columns[columnIndex]))
        }
        var grouping = IcebergPartitionGrouping(keys: keys, rowCount: chunk.count)
        grouping.run()
        var result: [(partition: [AvroValue], rows: [Int])] = []
        result.reserveCapacity(grouping.groupRows.count)
        for (group, rows) in grouping.groupRows.enumerated() {
            let representative = grouping.representatives[group]
            var partition: [AvroValue] = []
            partition.reserveCapacity(keys.count)
            for fieldKeys in keys { partition.append(fieldKeys.avroValue(at: representative)) }
            result.append((partition, rows))
        }
        return result
    }
}
