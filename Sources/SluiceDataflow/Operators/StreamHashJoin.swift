import SluiceCore
import SluiceExpr
import SluicePlan

// Placeholder until the incremental join lands.
package struct StreamHashJoin: StreamOperator {
    package init(
        leftTypes: [DataType], rightTypes: [DataType], kind: JoinKind, leftKeys: [Int], rightKeys: [Int], residual: ScalarExpr?,
        stateTableID: Int, context: EvaluationContext = EvaluationContext()
    ) throws(SluiceError) {
        throw SluiceError(.featureNotSupported, "joins are not supported in materialized views yet")
    }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {}
}
