import Foundation
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceLakehouse

/// `CREATE SOURCE t WITH (connector = 'iceberg', …)`: an Iceberg table, queried with SELECT as
/// RisingWave's Iceberg source is. Its columns come from the table's schema when the statement
/// lists none. Each query reads the table's current snapshot: the files a `WHERE` rules out
/// by partition values or column metrics are skipped, and so are the row groups inside the
/// files read. It delivers no changes to views: a view over it starts from the rows it holds
/// at CREATE.
package final class IcebergSource: SourceConnector {
    private let description: SourceDescription
    private let options: IcebergTableOptions
    private let catalog: IcebergCatalogAccess
    private let lakehouse: Lakehouse
    package let statistics = SourceStatistics()
    package let notices: [String] = []
    private let columnsFromTable: [(name: String, type: DataType)]?

    package init(_ description: SourceDescription, lakehouse: Lakehouse, validate: Bool) throws(SluiceError) {
        self.description = description
        self.lakehouse = lakehouse
        options = try IcebergTableOptions(description.options)
        catalog = try IcebergCatalogAccess.resolve(options, lakehouse: lakehouse)
        guard validate else {
            columnsFromTable = nil
            statistics.status = "idle"
            return
        }
        guard let loaded = try catalog.loadTable(options.identifier) else {
            throw SluiceError(.undefinedTable, "iceberg table \(options.identifier) does not exist")
        }
        let schema = try IcebergTableScan(metadata: loaded.metadata, fileIO: LocalFileIO()).schema()
        let columns = try schema.columns()
        columnsFromTable = columns.map { ($0.name, $0.type) }
        statistics.status = "idle"
        // Listed columns must be the table's, by name, with types its values fit.
        for column in description.columns {
            guard let field = columns.first(where: { $0.name == column.name }) else {
                throw SluiceError(
                    .undefinedColumn, "the iceberg table \(options.identifier) has no column \"\(column.name)\"",
                    hint: "Its columns are \(columns.map(\.name).joined(separator: ", ")); leave the list out to take them all.")
            }
            guard field.type == column.type || IcebergSink.fits(field.type, into: column.type) else {
                throw SluiceError(
                    .datatypeMismatch, "column \"\(column.name)\" is \(column.type.sqlName) in the source but \(field.type.sqlName) in the iceberg table")
            }
        }
    }

    package var inferredColumns: [(name: String, type: DataType)]? { columnsFromTable }

    /// The source's columns: as listed, or (listed none) as the table had them at CREATE.
    private var sourceColumns: [(name: String, type: DataType)] {
        description.columns.isEmpty ? (columnsFromTable ?? []) : description.columns
    }

    package func start(output: SourceOutput) {}
    package func stop() {}
    package var positions: [Int32: Int64]? { nil }

    /// The table's rows, read when the backfill reaches them (the table as it is then: an
    /// Iceberg source delivers no stream, so there is no position to meet).
    package func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        SourceSnapshot(rowEstimate: 0) { [self] (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            try scan(pruningBy: nil, each: each)
        }
    }
    private func table() throws(SluiceError) -> IcebergLoadedTable {
        guard let loaded = try catalog.loadTable(options.identifier) else {
            throw SluiceError(.undefinedTable, "iceberg table \(options.identifier) does not exist")
        }
        return loaded
    }

    /// The current snapshot's rows in the source's columns, pruned by `filter`, in chunks of the
    /// usual size.
    package func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        let loaded = try table()
        let fileIO = try IcebergSink.fileIO(for: loaded, options: options, lakehouse: lakehouse)
        let scan = IcebergTableScan(metadata: loaded.metadata, fileIO: fileIO)
        let schema = try scan.schema()
        var fields: [Int] = []
        for column in sourceColumns {
            guard let field = schema.field(named: column.name) else {
                throw SluiceError(.undefinedColumn, "the iceberg table \(options.identifier) no longer has column \"\(column.name)\"")
            }
            fields.append(field.id)
        }
        let predicate = filter.flatMap { Self.predicate($0, fields: fields) }
        let plan = try scan.plan(fields: fields, predicate: predicate)
        var read = IcebergScanReadStatistics()
        var rows = 0
        for task in plan.tasks {
            for chunk in try scan.read(task, fields: fields, statistics: &read) {
                rows += chunk.count
                // A row group comes back as one chunk; the query takes the usual ~1,000 rows.
                var start = 0
                while start < chunk.count {
                    let end = min(start + Chunk.preferredSize, chunk.count)
                    try each(try conform(start == 0 && end == chunk.count ? chunk : chunk.slice(start ..< end)))
                    start = end
                }
            }
        }
        statistics.rowsRead.add(rows, ordering: .relaxed)
        statistics.status = "last scan: \(plan.counters), row groups: \(read.rowGroups - read.rowGroupsPruned) of \(read.rowGroups), rows: \(rows)"
    }

    /// `chunk` in the source's column types (a table's int read into a bigint column, say).
    private func conform(_ chunk: Chunk) throws(SluiceError) -> Chunk {
        var columns = chunk.columns
        let wanted = sourceColumns
        for index in columns.indices where columns[index].type != wanted[index].type {
            columns[index] = try IcebergDataWriter.convert(columns[index], to: wanted[index].type)
        }
        return Chunk(columns: columns, count: chunk.count)
    }

    /// The conjuncts of `filter` the scan can prune by: a column compared with a constant, a
    /// column IS [NOT] NULL. Anything else is left to the query, which filters every row anyway.
    static func predicate(_ filter: ScalarExpr, fields: [Int]) -> IcebergScanPredicate? {
        var terms: [IcebergScanTerm] = []
        for conjunct in filter.conjuncts {
            if let term = term(conjunct, fields: fields) { terms.append(term) }
        }
        return terms.isEmpty ? nil : IcebergScanPredicate(terms)
    }

    private static func term(_ expression: ScalarExpr, fields: [Int]) -> IcebergScanTerm? {
        switch expression {
        case .isNull(.column(let index, _), let negated):
            return negated ? .isNotNull(fieldID: fields[index]) : .isNull(fieldID: fields[index])
        case .call(let function, let arguments) where arguments.count == 2:
            guard let op = ComparisonOperator(rawValue: function.name) else { return nil }
            switch (column(arguments[0]), arguments[1], column(arguments[1]), arguments[0]) {
            case (let index?, .literal(let value, _), _, _) where !value.isNull:
                return comparison(op, flipped: false).map { .compare(fieldID: fields[index], $0, value) }
            case (_, _, let index?, .literal(let value, _)) where !value.isNull:
                return comparison(op, flipped: true).map { .compare(fieldID: fields[index], $0, value) }
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The column `expression` reads, directly or widened by a cast (which keeps its order).
    private static func column(_ expression: ScalarExpr) -> Int? {
        switch expression {
        case .column(let index, _): index
        case .cast(.column(let index, let from), let to) where from.isNumeric && to.isNumeric: index
        case .cast(.column(let index, .date), .timestamp), .cast(.column(let index, .date), .timestamptz): index
        default: nil
        }
    }

    private static func comparison(_ op: ComparisonOperator, flipped: Bool) -> IcebergComparison? {
        switch (op, flipped) {
        case (.equal, _): .equal
        case (.less, false), (.greater, true): .lessThan
        case (.lessOrEqual, false), (.greaterOrEqual, true): .lessThanOrEqual
        case (.greater, false), (.less, true): .greaterThan
        case (.greaterOrEqual, false), (.lessOrEqual, true): .greaterThanOrEqual
        default: nil
        }
    }
}
