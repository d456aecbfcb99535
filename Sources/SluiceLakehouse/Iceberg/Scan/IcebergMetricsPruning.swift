import SluiceCore
import SluiceFormats

// Iceberg spec: "Scan Planning", Appendix D. A data file's column metrics (value, null and NaN
// counts; lower and upper bounds in the single-value serialization) and a Parquet row group's
// statistics each rule a predicate out when they prove no row can match.

extension IcebergDataFile {
    /// Whether the file may hold a row matching every term of `predicate`, judged by its
    /// column metrics; columns are typed by `schema` (bounds written before an `int` → `long`
    /// or `float` → `double` promotion still decode).
    func mayMatch(_ predicate: IcebergScanPredicate, schema: IcebergSchema) -> Bool {
        for term in predicate.terms {
            guard let field = schema.field(id: term.fieldID) else { continue }
            let key = Int32(truncatingIfNeeded: term.fieldID)
            // A uuid column's bounds are its 16 bytes but its values are text: leave them out.
            var boundType: DataType?
            if case .uuid = field.type {} else { boundType = try? field.type.sluiceType() }
            let lower = boundType.flatMap { type in lowerBounds?[key].flatMap { IcebergSingleValue.decode($0, as: type) } }
            let upper = boundType.flatMap { type in upperBounds?[key].flatMap { IcebergSingleValue.decode($0, as: type) } }
            let evidence = IcebergColumnEvidence(
                lower: lower, upper: upper, valueCount: valueCounts?[key], nullCount: nullValueCounts?[key],
                nanCount: nanValueCounts?[key] ?? IcebergDataFile.nanCountOfNonFloat(field.type))
            if !evidence.mayMatch(term) { return false }
        }
        return true
    }

    /// 0 for a column that cannot hold NaN (so its upper bound serves `>`), nil for floats.
    private static func nanCountOfNonFloat(_ type: IcebergType) -> Int64? {
        switch type {
        case .float, .double: nil
        default: 0
        }
    }
}

/// The leaves of a Parquet file that a predicate can use: those with a field id that are not
/// inside a list (a list's leaf counts elements, not rows).
struct IcebergParquetStatistics {
    private var leafByFieldID: [Int: Int] = [:]
    /// Whether the file records field ids at all; without them a missing id proves nothing.
    let hasFieldIDs: Bool

    init(schema: [ParquetColumnSchema]) {
        var leafIndex = 0
        var found: [Int: Int] = [:]
        var anyFieldID = false
        func walk(_ column: ParquetColumnSchema, insideList: Bool) {
            if column.fieldID != nil { anyFieldID = true }
            switch column.type {
            case .structure:
                for child in column.children { walk(child, insideList: insideList) }
            case .list:
                for child in column.children { walk(child, insideList: true) }
            default:
                if !insideList, let id = column.fieldID { found[Int(id)] = leafIndex }
                leafIndex += 1
            }
        }
        for column in schema { walk(column, insideList: false) }
        leafByFieldID = found
        hasFieldIDs = anyFieldID
    }

    /// Whether row group `rowGroup` may hold a row matching every term of `predicate`.
    ///
    /// A field the file does not have (a column added after it was written) is null in every
    /// row, which rules out comparisons and `IS NOT NULL`.
    func mayMatch(_ predicate: IcebergScanPredicate, rowGroup: ParquetRowGroupInfo, schema: IcebergSchema) -> Bool {
        guard rowGroup.rowCount > 0 else { return false }
        for term in predicate.terms {
            let evidence: IcebergColumnEvidence
            if let leafIndex = leafByFieldID[term.fieldID] {
                guard leafIndex < rowGroup.columns.count else { continue }
                let chunk = rowGroup.columns[leafIndex]
                var isFloat = false
                if case .float32? = chunk.min { isFloat = true }
                if case .float64? = chunk.min { isFloat = true }
                evidence = IcebergColumnEvidence(
                    lower: chunk.min, upper: chunk.max, valueCount: chunk.valueCount, nullCount: chunk.nullCount,
                    nanCount: isFloat ? nil : 0)
            } else if hasFieldIDs, schema.field(id: term.fieldID)?.type.isPrimitive == true {
                evidence = IcebergColumnEvidence(hasNulls: true, hasNonNulls: false, hasNaN: false)
            } else {
                continue
            }
            if !evidence.mayMatch(term) { return false }
        }
        return true
    }
}
