import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Finds the stored rows of tables and views by catalog id.
package protocol TableProvider: Sendable {
    func store(for tableID: Int) -> TableStore?
    /// The secondary index `indexID` (``TableIndex``), kept with its table's current rows.
    func index(_ indexID: Int) -> TableIndex?
}

extension TableProvider {
    package func index(_ indexID: Int) -> TableIndex? { nil }
}

/// A provider whose relations may skip rows a filter rules out when read (an Iceberg source
/// prunes files by their metrics); the executor still applies the filter to what comes back.
package protocol PruningTableProvider: TableProvider {
    /// The rows of `tableID` that `filter` (over the relation's columns) may keep.
    func store(for tableID: Int, pruningBy filter: ScalarExpr) -> TableStore?
}

/// Runs batch plans to completion over columnar chunks.
///
/// Each operator consumes its inputs' chunks and produces chunks of about
/// ``Chunk/preferredSize`` rows; expressions are evaluated a chunk at a time.
package struct BatchExecutor: Sendable {
    package var tables: any TableProvider
    package var context: EvaluationContext
    /// Polled between chunks; returning true stops the query with 57014.
    package var isCancelled: @Sendable () -> Bool
    /// What the operators that hold rows reserve from (53200 past its limit).
    package var memory: QueryMemory

    package init(
        tables: any TableProvider, context: EvaluationContext, isCancelled: @escaping @Sendable () -> Bool = { false },
        memory: QueryMemory = QueryMemory(limit: .max)
    ) {
        self.tables = tables
        self.context = context
        self.isCancelled = isCancelled
        self.memory = memory
    }

    /// All rows of `plan`, held by `operation`: each chunk's bytes reserved as it comes. The
    /// operators that hold rows put them in one chunk, whose text columns address their bytes
    /// with 32-bit offsets: past 2 GiB of text in a column the query fails with 54000.
    func collect(_ plan: BatchPlan, for operation: String) throws(SluiceError) -> [Chunk] {
        let source = try stream(plan)
        var chunks: [Chunk] = []
        var text: [Int] = []
        while let chunk = try source.next() {
            try memory.reserve(chunk.approximateBytes, for: operation)
            if text.isEmpty { text = [Int](repeating: 0, count: chunk.columns.count) }
            if Self.addText(of: chunk, to: &text) {
                throw SluiceError(.programLimitExceeded, "\(operation) holds more than 2 GB of text in one column")
            }
            chunks.append(chunk)
        }
        return chunks
    }

    /// All result rows of `plan`.
    package func run(_ plan: BatchPlan) throws(SluiceError) -> [Chunk] {
        if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
        switch plan {
        case .scan, .filter, .project, .limit, .nestedLoopJoin, .hashJoin, .hashAggregate, .sort, .topN, .tableFunction, .union, .projectSet,
            .apply, .window, .overWindow:
            return try stream(plan).drain()
        case .values(let rows, let types):
            return [try values(rows, types: types)]
        case .maxOneRow(let input):
            // (Two rows are enough to fail: no more are made.)
            let chunks = try stream(input).limited(2, offset: 0).drain()
            if chunks.reduce(0, { $0 + $1.count }) > 1 {
                throw SluiceError(.cardinalityViolation, "more than one row returned by a subquery used as an expression")
            }
            return chunks
        case .setOperation:
            return try stream(plan).drain()
        }
    }

    /// The rows of `plan` as a stream: scans, filters, projections, `LIMIT`, joins, sorts and
    /// aggregates make their chunks as they are pulled (a `LIMIT` stops pulling once it has its
    /// rows; a join's build side, a sort's input and an aggregate's input are taken whole
    /// first); everything else is run whole first.
    /// `input`'s rows, where a filter `predicate` over them comes next: a scan of a relation
    /// that can prune (an Iceberg source) reads only what the predicate may keep.
    private func stream(_ input: BatchPlan, prunedBy predicate: ScalarExpr) throws(SluiceError) -> ChunkStream {
        guard case .scan(let scan) = input, scan.index == nil, let pruning = tables as? any PruningTableProvider else {
            return try stream(input)
        }
        let overTable = predicate.remappingColumns { scan.columns[$0] }
        guard let store = pruning.store(for: scan.tableID, pruningBy: overTable) else { return try stream(input) }
        return ChunkStream.pages(of: store.snapshot(), columns: scan.columns)
    }

    package func stream(_ plan: BatchPlan) throws(SluiceError) -> ChunkStream {
        if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
        let context = self.context
        switch plan {
        case .scan(let scan):
            if let lookup = scan.index, let index = tables.index(lookup.indexID) {
                var range = index.rows(prefix: lookup.prefix, lower: lookup.lower, upper: lookup.upper)
                return ChunkStream { () throws(SluiceError) -> Chunk? in
                    range.next().map { chunk in Chunk(columns: scan.columns.map { chunk.columns[$0] }, count: chunk.count) }
                }
            }
            guard let store = tables.store(for: scan.tableID) else {
                throw SluiceError(.undefinedTable, "relation \"\(scan.tableName)\" does not exist")
            }
            return ChunkStream.pages(of: store.snapshot(), columns: scan.columns)
        case .filter(let input, let predicate):
            let filter = CompiledFilter(predicate)
            return try stream(input, prunedBy: predicate).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in
                try filter.filter(chunk, context: context)
            }.coalesced(types: plan.outputTypes)
        case .project(.filter(let input, let predicate), let expressions):
            // Fused filter and projection: only the columns the projection reads are gathered.
            let read = expressions.reduce(into: Set<Int>()) { $0.formUnion($1.referencedColumns) }.sorted()
            var position: [Int: Int] = [:]
            for (newIndex, oldIndex) in read.enumerated() { position[oldIndex] = newIndex }
            let remapped = expressions.map { $0.remappingColumns { position[$0]! } }
            let filter = CompiledFilter(predicate)
            return try stream(input, prunedBy: predicate).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in
                if read.isEmpty {
                    // Nothing is read but the row count (count(*) over a filter).
                    let count = try filter.selectionCount(of: chunk, context: context)
                    guard count > 0 else { return nil }
                    var columns: [Column] = []
                    let empty = Chunk(columns: [], count: count)
                    for expression in remapped { columns.append(try ExpressionEvaluator.evaluate(expression, on: empty, context: context)) }
                    return Chunk(columns: columns, count: count)
                }
                let selected = try filter.selection(of: chunk, context: context)
                if selected?.isEmpty == true { return nil }
                let kept = selected.map { rows in Chunk(columns: read.map { chunk.columns[$0].gather(rows) }, count: rows.count) }
                    ?? Chunk(columns: read.map { chunk.columns[$0] }, count: chunk.count)
                var columns: [Column] = []
                columns.reserveCapacity(remapped.count)
                for expression in remapped { columns.append(try ExpressionEvaluator.evaluate(expression, on: kept, context: context)) }
                return Chunk(columns: columns, count: kept.count)
            }.coalesced(types: plan.outputTypes)
        case .project(let input, let expressions):
            return try stream(input).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in
                var columns: [Column] = []
                columns.reserveCapacity(expressions.count)
                for expression in expressions {
                    columns.append(try ExpressionEvaluator.evaluate(expression, on: chunk, context: context))
                }
                return Chunk(columns: columns, count: chunk.count)
            }
        case .topN(let input, let keys, let limit, let offset):
            return try TopN(types: input.outputTypes, keys: keys, limit: limit, offset: offset, memory: memory, isCancelled: isCancelled)
                .sort(try stream(input))
        case .limit(.sort(let input, let keys), let limit?, let offset):
            // (The optimizer makes these top-Ns; a plan made by hand runs as one too.)
            return try stream(.topN(input: input, keys: keys, limit: limit, offset: offset))
        case .limit(.project(.sort(let input, let keys), let expressions), let limit?, let offset):
            return try stream(.project(input: .topN(input: input, keys: keys, limit: limit, offset: offset), expressions: expressions))
        case .limit(let input, let limit, let offset):
            return try stream(input).limited(limit, offset: offset)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            // The inner side whole (or on disk past the query's memory), the outer as it comes.
            return try nestedLoopJoin(left: left, right: right, kind: kind, predicate: predicate).coalesced(types: plan.outputTypes)
        case .hashJoin(let join):
            return try hashJoin(join).coalesced(types: plan.outputTypes)
        case .tableFunction(let function, let arguments, let types):
            return try TableFunctions.stream(function, arguments: arguments, types: types, context: context)
        case .projectSet(let input, let expressions, let expands):
            let types = plan.outputTypes
            return try stream(input).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in
                try projectSet(chunk, expressions: expressions, expands: expands, types: types)
            }
        case .apply(let input, let subquery, let kind) where kind.isLateral:
            return try lateral(try stream(input), inputTypes: input.outputTypes, subquery: subquery, keepsUnmatched: kind == .lateralLeft)
        case .apply(let input, let subquery, let kind):
            let inputTypes = input.outputTypes
            return try stream(input).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in
                try apply(chunk, inputTypes: inputTypes, subquery: subquery, kind: kind)
            }
        case .union(let inputs, let distinct):
            // Each input as it comes; UNION's duplicates go as GROUP BY every column's do (spilling
            // past the memory limit).
            let all = ChunkStream.concatenating(count: inputs.count) { (index: Int) throws(SluiceError) in try stream(inputs[index]) }
            guard distinct else { return all }
            let types = plan.outputTypes
            return try hashAggregate(all, inputTypes: types, groupCount: types.count, aggregates: [])
        case .hashAggregate(let input, let groupCount, let aggregates):
            // Consumed as its input makes it: a join under it is never built whole.
            return try hashAggregate(try stream(input), inputTypes: input.outputTypes, groupCount: groupCount, aggregates: aggregates)
        case .window(let input, let partitionColumns, let orderColumns, let functions):
            var numbering = WindowNumbering(partitionColumns: partitionColumns, orderColumns: orderColumns, functions: functions)
            return try stream(input).map { (chunk: Chunk) throws(SluiceError) -> Chunk? in numbering.number(chunk) }
        case .overWindow(let input, let partitionColumns, let order, let calls):
            return try overWindow(try stream(input), types: input.outputTypes, partitionColumns: partitionColumns, order: order, calls: calls)
        case .sort(let input, let keys):
            return try ExternalSort(types: input.outputTypes, keys: keys, memory: memory, isCancelled: isCancelled).sort(try stream(input))
        case .setOperation(let left, let right, let kind, let all):
            // Counted by an aggregate, which spills when the rows outgrow the query's memory;
            // each row then repeated as many times as the operation keeps it, a chunk at a time.
            let width = left.outputTypes.count
            let counted = try stream(SetOperationCounting.counted(left: left, right: right))
            var current: (chunk: Chunk, lefts: [Int64], rights: [Int64])?
            var (row, emitted) = (0, Int64(0))
            return ChunkStream { () throws(SluiceError) -> Chunk? in
                var picks: [Int] = []
                while picks.count < Chunk.preferredSize {
                    if current == nil || row == current!.chunk.count {
                        guard let chunk = try counted.next() else { break }
                        guard case .int64(let lefts) = chunk.columns[width].storage, case .int64(let rights) = chunk.columns[width + 1].storage else {
                            throw SluiceError.internalError("set operation counts are not bigint")
                        }
                        if !picks.isEmpty, let previous = current {
                            // Rows of the finished chunk go out before the next chunk's.
                            current = (chunk, lefts, rights)
                            (row, emitted) = (0, 0)
                            return Chunk(columns: Array(previous.chunk.gather(picks).columns[..<width]), count: picks.count)
                        }
                        current = (chunk, lefts, rights)
                        (row, emitted) = (0, 0)
                        continue
                    }
                    let (_, lefts, rights) = current!
                    let copies = SetOperationCounting.copies(kind: kind, all: all, left: lefts[row], right: rights[row])
                    let taken = min(copies - emitted, Int64(Chunk.preferredSize - picks.count))
                    picks.append(contentsOf: repeatElement(row, count: Int(taken)))
                    emitted += taken
                    if emitted == copies { (row, emitted) = (row + 1, 0) }
                }
                guard let chunk = current?.chunk, !picks.isEmpty else { return nil }
                return Chunk(columns: Array(chunk.gather(picks).columns[..<width]), count: picks.count)
            }
        default:
            return ChunkStream.of(try run(plan))
        }
    }

    /// The rows of `plan` gathered into one chunk.
    package func runToChunk(_ plan: BatchPlan) throws(SluiceError) -> Chunk {
        Chunk.concatenate(try run(plan), types: plan.outputTypes)
    }

    /// Runs a correlated subquery once per row of `chunk` (the shapes decorrelation leaves:
    /// fine for the catalog queries clients send, slow for large inputs).
    private func apply(_ chunk: Chunk, inputTypes: [DataType], subquery: BatchPlan, kind: ApplyKind) throws(SluiceError) -> Chunk {
        let resultType = kind.resultType(subquery.outputTypes.first ?? .unknown)
        var builder = ColumnBuilder(type: resultType, capacity: chunk.count)
        // ARRAY results are held, as rows and as the arrays made of them, until the chunk is out.
        var held = 0
        defer { memory.release(held) }
        for rowIndex in 0 ..< chunk.count {
            let bound = subquery.bindingOuterReferences(to: chunk.row(rowIndex), types: inputTypes)
            builder.append(try subqueryValue(bound, kind: kind, holding: &held))
        }
        return Chunk(columns: chunk.columns + [builder.finish()], count: chunk.count)
    }

    /// The value subquery `plan` gives an expression: whether it has a row (EXISTS), its one
    /// value (NULL without rows; more than one row fails with 21000), or its values as an array,
    /// whose bytes are reserved from the query's memory and added to `held`, for the caller to
    /// release when the value is gone.
    package func subqueryValue(_ plan: BatchPlan, kind: ApplyKind, holding held: inout Int) throws(SluiceError) -> Value {
        switch kind {
        case .exists:
            return .bool(try run(.limit(input: plan, limit: 1, offset: 0)).contains { !$0.isEmpty })
        case .array:
            let chunks = try collect(plan, for: "an ARRAY subquery")
            let count = chunks.reduce(0) { $0 + $1.count }
            held += chunks.reduce(0) { $0 + $1.approximateBytes }
            // (A boxed value per element.)
            try memory.reserve(40 * count, for: "an ARRAY subquery")
            held += 40 * count
            return .list(chunks.flatMap { $0.columns[0].values })
        case .scalar:
            // (Two rows are enough to fail: no more are made.)
            let result = Chunk.concatenate(try stream(plan).limited(2, offset: 0).drain(), types: plan.outputTypes)
            if result.count > 1 {
                throw SluiceError(.cardinalityViolation, "more than one row returned by a subquery used as an expression")
            }
            return result.count == 0 ? .null : result.columns[0].value(at: 0)
        case .lateral, .lateralLeft:
            throw SluiceError.internalError("a lateral apply runs through lateral(_:…)")
        }
    }

    /// A lateral apply: for each input row, the subquery's rows (run with its outer references
    /// bound to that row) as they stream, each after the input row's columns; with
    /// `keepsUnmatched`, the input row padded with NULLs when the subquery has none.
    private func lateral(_ input: ChunkStream, inputTypes: [DataType], subquery: BatchPlan, keepsUnmatched: Bool) throws(SluiceError) -> ChunkStream {
        let rightTypes = subquery.outputTypes
        var current: Chunk?
        var rowIndex = 0
        var row: [Value] = []
        var rows: ChunkStream?
        var matched = false
        func joined(_ right: Chunk) -> Chunk {
            var columns: [Column] = []
            for (index, type) in inputTypes.enumerated() {
                var builder = ColumnBuilder(type: type, capacity: right.count)
                for _ in 0 ..< right.count { builder.append(row[index]) }
                columns.append(builder.finish())
            }
            return Chunk(columns: columns + right.columns, count: right.count)
        }
        return ChunkStream { () throws(SluiceError) -> Chunk? in
            while true {
                if self.isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                if let stream = rows {
                    if let chunk = try stream.next() {
                        if chunk.count == 0 { continue }
                        matched = true
                        return joined(chunk)
                    }
                    rows = nil
                    rowIndex += 1
                    if keepsUnmatched && !matched {
                        let nulls = rightTypes.map { (type) -> Column in
                            var builder = ColumnBuilder(type: type, capacity: 1)
                            builder.appendNull()
                            return builder.finish()
                        }
                        return joined(Chunk(columns: nulls, count: 1))
                    }
                }
                if current == nil || rowIndex >= current!.count {
                    guard let next = try input.next() else { return nil }
                    current = next
                    rowIndex = 0
                    continue
                }
                row = current!.row(rowIndex)
                matched = false
                rows = try self.stream(subquery.bindingOuterReferences(to: row, types: inputTypes))
            }
        }
    }

    /// One input chunk's rows of a projection with set-returning functions (nil when none).
    private func projectSet(_ chunk: Chunk, expressions: [ScalarExpr], expands: [Bool], types: [DataType]) throws(SluiceError) -> Chunk? {
        var columns: [Column] = []
        for expression in expressions { columns.append(try ExpressionEvaluator.evaluate(expression, on: chunk, context: context)) }
        return Chunk.expandingLists(columns, expands: expands, types: types, rowCount: chunk.count)?.chunk
    }

    private func values(_ rows: [[ScalarExpr]], types: [DataType]) throws(SluiceError) -> Chunk {
        let single = Chunk(columns: [], count: 1)
        var builders = types.map { ColumnBuilder(type: $0, capacity: rows.count) }
        for row in rows {
            guard row.count == types.count else { throw SluiceError.internalError("VALUES row has \(row.count) columns, expected \(types.count)") }
            for (columnIndex, expression) in row.enumerated() {
                if case .literal(let value, let type) = expression, type == types[columnIndex] || value.isNull {
                    // A literal of the column's type (what INSERT … VALUES binds to) goes in as it is.
                    builders[columnIndex].append(value)
                    continue
                }
                var column = try ExpressionEvaluator.evaluate(expression, on: single, context: context)
                if column.type != types[columnIndex] {
                    column = try CastKernels.cast(column, to: types[columnIndex], context: context)
                }
                builders[columnIndex].append(column.value(at: 0))
            }
        }
        return Chunk(columns: builders.map { $0.finish() }, count: rows.count)
    }
}
