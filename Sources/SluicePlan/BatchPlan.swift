import SluiceCore
import SluiceExpr

/// A physical plan for a batch query, as a plain value: the planner builds it, the batch
/// executor runs it, EXPLAIN prints it.
package indirect enum BatchPlan: Sendable, Equatable {
    /// All rows of a stored table or view, projected to `columns` (indexes into its schema).
    case scan(TableScan)
    /// Literal rows; each row's expressions see an empty input.
    case values(rows: [[ScalarExpr]], types: [DataType])
    /// Rows of `input` where `predicate` is true.
    case filter(input: BatchPlan, predicate: ScalarExpr)
    /// One output column per expression over `input`'s columns.
    case project(input: BatchPlan, expressions: [ScalarExpr])
    /// A projection with set-returning functions: the expressions flagged in `expands` yield
    /// arrays, and each input row becomes as many rows as its longest array (shorter ones
    /// padded with NULL; other columns repeated), as Postgres's ProjectSet does.
    case projectSet(input: BatchPlan, expressions: [ScalarExpr], expands: [Bool])
    /// Groups `input` by its first `groupCount` columns; outputs the group columns then one
    /// column per aggregate. With `groupCount == 0`, outputs exactly one row.
    case hashAggregate(input: BatchPlan, groupCount: Int, aggregates: [AggregateCall])
    /// Equi-join on key columns, with an optional residual predicate over the joined row
    /// (left columns then right columns).
    case hashJoin(HashJoin)
    /// Join of every left row with every right row where `predicate` holds (nil: all pairs).
    case nestedLoopJoin(left: BatchPlan, right: BatchPlan, kind: JoinKind, predicate: ScalarExpr?)
    case sort(input: BatchPlan, keys: [SortKey])
    /// The rows `offset ..< offset + limit` of `input` sorted by `keys` (ORDER BY … LIMIT … OFFSET):
    /// a bounded top-N that keeps only `limit + offset` rows as the input passes, instead of
    /// sorting it whole. Batch queries only; the optimizer makes it of a limit over a sort last.
    case topN(input: BatchPlan, keys: [SortKey], limit: Int, offset: Int)
    /// Rows `offset ..< offset + limit` of `input` (all after `offset` when `limit` is nil).
    case limit(input: BatchPlan, limit: Int?, offset: Int)
    /// The rows of all inputs, one after another; `distinct` removes duplicate rows.
    case union(inputs: [BatchPlan], distinct: Bool)
    /// Rows of `left` that are (or, for EXCEPT, are not) in `right`.
    case setOperation(left: BatchPlan, right: BatchPlan, kind: SetOperationKind, all: Bool)
    /// The rows a set-returning function produces from constant arguments.
    case tableFunction(TableFunction, arguments: [ScalarExpr], types: [DataType])
    /// The rows of `input`, failing with 21000 if there is more than one (scalar subqueries).
    case maxOneRow(input: BatchPlan)
    /// For each row of `input`, runs `subquery` with its outer references bound to that row's
    /// columns and appends one column: the subquery's single value (scalar) or whether it
    /// returned any row (exists).
    case apply(input: BatchPlan, subquery: BatchPlan, kind: ApplyKind)
    /// Ranking window functions over `input`, which arrives sorted by its partition columns
    /// then its order columns: appends one bigint column per function, numbering the rows of
    /// each run of equal partition columns (peers share the order columns' values).
    case window(input: BatchPlan, partitionColumns: [Int], orderColumns: [Int], functions: [WindowFunctionKind])
    /// Window functions over frames (aggregates, `lag`/`lead`, `first_value`/`last_value`)
    /// over `input`, which arrives sorted by its partition columns then `order`: appends one
    /// column per call, each row's value over its partition (``OverWindowEvaluation``).
    case overWindow(input: BatchPlan, partitionColumns: [Int], order: [SortKey], calls: [WindowCall])

    /// The types of the columns this plan produces.
    package var outputTypes: [DataType] {
        switch self {
        case .scan(let scan): scan.columnTypes
        case .values(_, let types), .tableFunction(_, _, let types): types
        case .filter(let input, _), .limit(let input, _, _), .sort(let input, _), .topN(let input, _, _, _), .maxOneRow(let input): input.outputTypes
        case .project(_, let expressions): expressions.map(\.type)
        case .projectSet(_, let expressions, let expands):
            zip(expressions, expands).map { expression, expands in
                if expands, case .list(let element) = expression.type { return element }
                return expression.type
            }
        case .hashAggregate(let input, let groupCount, let aggregates):
            Array(input.outputTypes.prefix(groupCount)) + aggregates.map(\.resultType)
        case .hashJoin(let join): join.kind.outputTypes(left: join.left.outputTypes, right: join.right.outputTypes)
        case .nestedLoopJoin(let left, let right, let kind, _):
            kind.outputTypes(left: left.outputTypes, right: right.outputTypes)
        case .union(let inputs, _): inputs.first?.outputTypes ?? []
        case .apply(let input, let subquery, let kind):
            kind.isLateral ? input.outputTypes + subquery.outputTypes : input.outputTypes + [kind.resultType(subquery.outputTypes.first ?? .unknown)]
        case .setOperation(let left, _, _, _): left.outputTypes
        case .window(let input, _, _, let functions): input.outputTypes + functions.map { _ in .int64 }
        case .overWindow(let input, _, _, let calls): input.outputTypes + calls.map(\.resultType)
        }
    }
}

/// A scan of one stored relation.
///
/// A column index one past the stored columns of a table without a primary key is its hidden
/// row id (RisingWave's `_row_id`, ``rowIDType``), read from the rows' state keys.
package struct TableScan: Sendable, Equatable {
    /// The type of a table's hidden row id.
    package static let rowIDType = DataType.int64

    /// The catalog id of the table or view.
    package var tableID: Int
    package var tableName: String
    /// Which columns of the stored schema to produce, in order.
    package var columns: [Int]
    package var columnTypes: [DataType]
    /// True for a source: its change stream only ever inserts, which lets aggregates over it
    /// keep a single value for min and max instead of every value.
    package var isAppendOnly: Bool
    /// Read through a secondary index, only the rows of one key range (a superset of the rows
    /// the filter above keeps); nil: every row.
    package var index: IndexLookup?
    /// For a source with a watermark: its time column, in the stored schema.
    package var watermarkColumn: Int?
    /// Read `FOR SYSTEM_TIME AS OF PROCTIME()`: a query reads it as it is, and a view joining
    /// it looks its rows up as the other side's rows arrive, its own changes emitting nothing.
    package var asOfProcessingTime = false

    package init(tableID: Int, tableName: String, columns: [Int], columnTypes: [DataType], isAppendOnly: Bool = false) {
        self.tableID = tableID
        self.tableName = tableName
        self.columns = columns
        self.columnTypes = columnTypes
        self.isAppendOnly = isAppendOnly
    }
}

/// A lookup in a table's secondary index: the rows whose first key columns equal `prefix` and
/// whose next key column is within `lower` and `upper` (open where nil).
package struct IndexLookup: Sendable, Equatable {
    package typealias Bound = KeyBound

    package var indexID: Int
    package var indexName: String
    /// The names of the key columns the lookup constrains, for EXPLAIN.
    package var keyNames: [String]
    package var prefix: [Value]
    package var lower: Bound?
    package var upper: Bound?

    package init(indexID: Int, indexName: String, keyNames: [String], prefix: [Value], lower: Bound? = nil, upper: Bound? = nil) {
        self.indexID = indexID
        self.indexName = indexName
        self.keyNames = keyNames
        self.prefix = prefix
        self.lower = lower
        self.upper = upper
    }

    /// `a = 1 AND b >= 2 AND b < 5`, as EXPLAIN shows the range.
    package var rangeDescription: String {
        var parts = zip(keyNames, prefix).map { "\($0) = \($1.sqlLiteralText)" }
        if prefix.count < keyNames.count {
            let name = keyNames[prefix.count]
            if let lower { parts.append("\(name) \(lower.inclusive ? ">=" : ">") \(lower.value.sqlLiteralText)") }
            if let upper { parts.append("\(name) \(upper.inclusive ? "<=" : "<") \(upper.value.sqlLiteralText)") }
        }
        return parts.joined(separator: " AND ")
    }
}

extension Value {
    /// The value as EXPLAIN shows a constant: text quoted.
    fileprivate var sqlLiteralText: String {
        if case .string = self { return "'\(textForm)'" }
        return textForm
    }
}

/// An equi-join of two inputs, batch or stream.
package struct EquiJoin<Input: Sendable & Equatable>: Sendable, Equatable {
    package var left: Input
    package var right: Input
    package var kind: JoinKind
    package var leftKeys: [Int]
    package var rightKeys: [Int]
    /// Extra condition over the concatenated row (left columns, then right columns).
    package var residual: ScalarExpr?
    /// For a batch semi or anti join: the hash table is built on the left side, whose rows are
    /// marked as the right side's rows find them, and the left rows marked (semi) or not (anti)
    /// come out at the end. Chosen when the left side is estimated much smaller than the right
    /// (`EXISTS` over a large table), so that the large side streams past a small table.
    package var buildsLeft = false

    package init(left: Input, right: Input, kind: JoinKind, leftKeys: [Int], rightKeys: [Int], residual: ScalarExpr?) {
        self.left = left
        self.right = right
        self.kind = kind
        self.leftKeys = leftKeys
        self.rightKeys = rightKeys
        self.residual = residual
    }
}

/// A batch equi-join.
package typealias HashJoin = EquiJoin<BatchPlan>

/// How unmatched rows of a join are treated.
package enum JoinKind: String, Sendable, Equatable {
    case inner, left, right, full
    /// Left rows with at least one match, once each; outputs left columns only.
    case semi
    /// Left rows with no match; outputs left columns only.
    case anti

    package func outputTypes(left: [DataType], right: [DataType]) -> [DataType] {
        switch self {
        case .semi, .anti: left
        default: left + right
        }
    }
}

/// INTERSECT or EXCEPT.
package enum SetOperationKind: String, Sendable, Equatable {
    case intersect, except
}

/// One aggregate computed by a hash aggregate, over columns of its input.
package struct AggregateCall: Sendable, Equatable {
    package var kind: AggregateKind
    /// The input column aggregated (nil for `count(*)`).
    package var argument: Int?
    /// For `string_agg`: the input column holding the delimiter.
    package var delimiter: Int?
    package var distinct: Bool
    /// A boolean input column; rows where it is not true are ignored (`FILTER (WHERE …)`).
    package var filter: Int?
    /// For order-sensitive aggregates (`string_agg(x, ',' ORDER BY y)`): keys over input columns.
    package var orderBy: [SortKey]
    package var resultType: DataType

    package init(
        kind: AggregateKind, argument: Int?, delimiter: Int? = nil, distinct: Bool = false, filter: Int? = nil,
        orderBy: [SortKey] = [], resultType: DataType
    ) {
        self.kind = kind
        self.argument = argument
        self.delimiter = delimiter
        self.distinct = distinct
        self.filter = filter
        self.orderBy = orderBy
        self.resultType = resultType
    }
}

/// What an ``BatchPlan/apply(input:subquery:kind:)`` appends for each row.
package enum ApplyKind: String, Sendable, Equatable {
    case scalar
    case exists
    /// The subquery's first column collected into an array (`ARRAY(SELECT …)`).
    case array
    /// Every row of the subquery, its columns appended to the input row's (`CROSS JOIN
    /// LATERAL`, and a function in FROM over earlier FROM items' columns).
    case lateral
    /// As ``lateral``, and the input row with NULLs when the subquery has no row for it
    /// (`LEFT JOIN LATERAL … ON true`).
    case lateralLeft = "lateral left"

    /// Whether the apply appends the subquery's rows (all its columns) rather than one value.
    package var isLateral: Bool { self == .lateral || self == .lateralLeft }
}

/// A reference from a correlated subquery to column `index` of the row it runs for.
package enum OuterReference {
    package static func function(_ index: Int, type: DataType) -> ScalarFunction {
        ScalarFunction(name: "outer$\(index)", argumentTypes: [], resultType: type, isDeterministic: false) {
            (_: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            throw SluiceError.internalError("outer reference evaluated without a row")
        }
    }

    /// The outer column a call refers to, if it is an outer reference.
    package static func index(of function: ScalarFunction) -> Int? {
        guard function.name.hasPrefix("outer$"), function.argumentTypes.isEmpty else { return nil }
        return Int(function.name.dropFirst(6))
    }
}

extension ApplyKind {
    /// The type of the column an apply appends, given the subquery's first column type.
    package func resultType(_ firstColumn: DataType) -> DataType {
        switch self {
        case .scalar, .lateral, .lateralLeft: firstColumn
        case .exists: .boolean
        case .array: .list(firstColumn)
        }
    }
}

/// Set-returning functions usable in FROM.
package enum TableFunction: String, Sendable, Equatable {
    /// One row per element of an array.
    case unnest
    /// `generate_series(start, stop[, step])` over integers.
    case generateSeries = "generate_series"
    /// `range(start, stop[, step])` over integers: `generate_series` without `stop` itself.
    case range
    /// `generate_series(start, stop, step)` over timestamps (with or without time zone) and an
    /// interval step.
    case generateTimestampSeries = "generate_series(timestamp)"
    /// `range(start, stop, step)` over timestamps: without `stop` itself.
    case timestampRange = "range(timestamp)"
}

/// The window functions a ``BatchPlan/window(input:partitionColumns:orderColumns:functions:)`` computes.
package enum WindowFunctionKind: String, Sendable, Equatable {
    /// 1, 2, 3, … within the partition.
    case rowNumber = "row_number"
    /// The row number of the first peer: gaps after ties.
    case rank
    /// 1 + the number of distinct peer groups before: no gaps.
    case denseRank = "dense_rank"
}
