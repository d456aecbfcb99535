import SluiceCore
import SluiceExpr
import SluicePlan

/// Set-returning functions in FROM, over arguments that do not depend on other FROM items,
/// made a chunk at a time as they are read: `generate_series` of any length holds one chunk.
enum TableFunctions {
    static func stream(_ function: TableFunction, arguments: [ScalarExpr], types: [DataType], context: EvaluationContext) throws(SluiceError) -> ChunkStream {
        ChunkStream(next: try function.rows(arguments: arguments, types: types, context: context))
    }
}
