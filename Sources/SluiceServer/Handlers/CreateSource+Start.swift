import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlanner

// A source's or connector-fed table's runtime effect: its connector started and wired to the
// table's store or to the stream runtime. CREATE does it once its catalog entry is made; a
// restart does it again for every such relation, from the positions it had reached.
extension CreateSourceHandler {
    /// Starts `connector`, which feeds `relation`; a source with a watermark starts it from
    /// `watermark` (a checkpoint's) when given.
    static func start(_ connector: any SourceConnector, for relation: RelationDefinition, watermark: Int64? = nil, in database: Database) {
        let streams = database.streams
        // A source's generated columns complete each chunk it delivers, snapshots and scans too.
        let generating: any SourceConnector = generatedColumns(for: relation, statistics: connector.statistics, catalog: database.catalog)
            .map { GeneratingConnector(connector, generated: $0) } ?? connector
        // A source's repeats are dropped from what it delivers, its snapshots and scans too.
        let deduplicator = relation.kind == .source ? database.registerDeduplicator(for: relation) : nil
        let connector: any SourceConnector = deduplicator.map {
            DeduplicatingConnector(generating, like: $0) { [weak database] in
                database.flatMap { WatermarkFilter(of: relation, from: nil, catalog: $0.catalog) }
            }
        } ?? generating
        streams.connectors.set(connector, for: relation.id)
        // A table's rows are its store's (set when it was made); a source's are its connector's.
        if relation.kind != .table { streams.runtime.setRows(.source(connector), for: relation.id) }
        let runtime = streams.runtime
        let tables = database.tables
        let id = relation.id
        let output: SourceOutput
        if relation.kind == .table {
            // The rows and then the position they reach are logged together: after a crash the
            // table holds exactly the rows before the logged position, and reading resumes there.
            let reached = { @Sendable [weak connector] () -> [Int32: Int64]? in connector?.positions }
            output = SourceOutput(
                isRead: { true },
                deliver: { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    try tables.insert([chunk], into: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                },
                deleteKeys: { (keys: Chunk, advance: () -> Void) throws(SluiceError) in
                    try tables.delete(keysOf: keys, from: relation, synchronousCommit: false) {
                        advance()
                        return reached()
                    }
                },
                truncate: { [spillDirectory = database.spillDirectory] () throws(SluiceError) in
                    _ = try tables.modify(relation, spillDirectory: spillDirectory) { (rows: Chunk) throws(SluiceError) in Bitmap(count: rows.count, value: true) }
                },
                lookup: { (keys: Chunk) in
                    tables.store(for: id)?.lookup(keysOf: keys) ?? (keys, Array(repeating: nil, count: keys.count))
                })
        } else if let filter = WatermarkFilter(of: relation, from: watermark, catalog: database.catalog) {
            // Late rows are dropped and counted; the watermark follows the rows it rose with,
            // in the same step (a checkpoint's cut sees both or neither).
            streams.connectors.setWatermarkFilter(filter, for: id)
            let statistics = connector.statistics
            output = SourceOutput(isRead: { runtime.isRead(id) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                runtime.withSource(id) { writer in
                    let (kept, late, watermark) = filter.apply(chunk)
                    if late > 0 { statistics.rowsLate.add(late, ordering: .relaxed) }
                    let rows = deduplicator?.apply(kept, watermark: filter.watermark) ?? kept
                    writer.emit(TableState.changes(rows, .insert))
                    if let watermark { writer.emit(watermark) }
                    advance()
                }
            }
        } else if let deduplicator {
            output = SourceOutput(isRead: { runtime.isRead(id) }) { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                runtime.withSource(id) { writer in
                    writer.emit(TableState.changes(deduplicator.apply(chunk, watermark: nil), .insert))
                    advance()
                }
            }
        } else {
            // The views over the source read some of its columns: a connector that can leave
            // the others undecoded (Parquet files) does, as long as no reader wants them.
            let reading = SourceOutput.ColumnReading(
                columns: { runtime.readColumns(id) },
                deliver: { (chunk: Chunk, columns: Set<Int>, advance: () -> Void) throws(SluiceError) -> Bool in
                    runtime.withSource(id) { writer -> Bool in
                        guard let read = writer.readColumns, read.isSubset(of: columns) else { return false }
                        writer.emit(TableState.changes(chunk, .insert))
                        advance()
                        return true
                    }
                })
            output = SourceOutput(
                isRead: { runtime.isRead(id) },
                deliver: { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
                    runtime.withSource(id) { writer in
                        writer.emit(TableState.changes(chunk, .insert))
                        advance()
                    }
                },
                reading: reading)
        }
        let reading = output.callingWhenCaughtUp { runtime.requestBarrier() }.runningJobs(on: runtime.backgroundJobs)
        connector.start(output: relation.kind == .table ? reading : reading.waitingForReaders { runtime.waitUntilRead(id, timeout: $0) })
    }

    /// `relation`'s generated columns, if it has any (bound again).
    private static func generatedColumns(for relation: RelationDefinition, statistics: SourceStatistics, catalog: Catalog) -> GeneratedColumns? {
        guard relation.columns.contains(where: { $0.generatedExpression != nil }) else { return nil }
        do {
            let columns = try Binder.generatedColumns(of: relation, catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
            return GeneratedColumns(columns: relation.columns, expressions: columns, statistics: statistics)
        } catch {
            // Checked at CREATE; a start that cannot bind them again fills them with NULLs.
            return GeneratedColumns(columns: relation.columns, expressions: [], statistics: statistics)
        }
    }
}

extension WatermarkFilter {
    /// The filter of `relation`'s watermark, its expression bound again, starting from
    /// `watermark` (a checkpoint's) when given. Nil when it has none, or when its expression no
    /// longer binds: it was checked at CREATE, and a start that cannot bind it again reads
    /// without a watermark.
    convenience init?(of relation: RelationDefinition, from watermark: Int64?, catalog: Catalog) {
        guard let spec = relation.watermark,
              let expression = try? Binder.watermarkExpression(of: relation, catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        else { return nil }
        self.init(column: spec.column, expression: expression, context: EvaluationContext(), watermark: watermark)
    }
}

extension SourceDescription {
    /// What the connector of source or connector-fed table `relation` is told: its columns
    /// (without the generated ones, which are not decoded), key, options and format.
    init(_ relation: RelationDefinition) {
        let spec = relation.connector ?? ConnectorSpec(options: [:], format: "", encode: "")
        self.init(
            id: relation.id, name: relation.name, columns: relation.columns.filter { $0.generatedExpression == nil }.map { ($0.name, $0.type) },
            primaryKey: relation.primaryKey,
            options: spec.options, format: spec.format, encode: spec.encode, formatOptions: spec.formatOptions, isTable: relation.kind == .table)
        startPositions = spec.startPositions
        primaryKeyNames = spec.primaryKeyNames ?? []
        let columns = self.columns
        includes = (spec.includes ?? []).compactMap { include in
            guard let kind = SourceInclude.Kind(rawValue: include.kind),
                  let column = columns.firstIndex(where: { $0.name == include.column }) else { return nil }
            return SourceInclude(kind: kind, column: column)
        }
    }
}
