import SluiceCore
import SluicePlan

/// The ranking window functions (`row_number`, `rank`, `dense_rank`) over rows that arrive
/// sorted by their partition columns, then their order columns.
///
/// Per chunk: O(rows × (partition + order columns)) value comparisons. State: the previous
/// row's partition and order values and the counters, so a partition may span chunks.
struct WindowNumbering {
    let partitionColumns: [Int]
    let orderColumns: [Int]
    let functions: [WindowFunctionKind]
    private var previousPartition: [Value]?
    private var previousOrder: [Value] = []
    /// Rows of the current partition so far.
    private var rowNumber: Int64 = 0
    /// The row number of the current peer group's first row.
    private var rank: Int64 = 0
    /// Peer groups of the current partition so far.
    private var denseRank: Int64 = 0

    init(partitionColumns: [Int], orderColumns: [Int], functions: [WindowFunctionKind]) {
        self.partitionColumns = partitionColumns
        self.orderColumns = orderColumns
        self.functions = functions
    }

    /// `chunk` with one bigint column appended per function.
    mutating func number(_ chunk: Chunk) -> Chunk {
        var builders = functions.map { _ in ColumnBuilder(type: .int64, capacity: chunk.count) }
        for rowIndex in 0 ..< chunk.count {
            let partition = partitionColumns.map { chunk.columns[$0].value(at: rowIndex) }
            let order = orderColumns.map { chunk.columns[$0].value(at: rowIndex) }
            if partition != previousPartition {
                previousPartition = partition
                rowNumber = 0
                rank = 0
                denseRank = 0
                previousOrder = []
            }
            rowNumber += 1
            if rowNumber == 1 || order != previousOrder {
                rank = rowNumber
                denseRank += 1
                previousOrder = order
            }
            for (index, function) in functions.enumerated() {
                switch function {
                case .rowNumber: builders[index].append(.int64(rowNumber))
                case .rank: builders[index].append(.int64(rank))
                case .denseRank: builders[index].append(.int64(denseRank))
                }
            }
        }
        return Chunk(columns: chunk.columns + builders.map { $0.finish() }, count: chunk.count)
    }
}
