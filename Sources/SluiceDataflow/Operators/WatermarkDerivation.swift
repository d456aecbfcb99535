import SluiceCore
import SluiceExpr

/// How a watermark on an input column becomes watermarks on the output columns of a
/// projection: a column passed on keeps it, and an expression that never decreases as the
/// column grows (a window's start or end, the column plus or minus a constant interval,
/// `date_trunc`) carries the expression's value at the watermark.
enum WatermarkDerivation {
    /// The watermarks `expressions` carry when their input has `watermark`, in the
    /// expressions' positions.
    static func derive(
        _ watermark: Watermark, through expressions: [ScalarExpr], inputTypes: [DataType], context: EvaluationContext
    ) -> [Watermark] {
        var derived: [Watermark] = []
        for (position, expression) in expressions.enumerated() {
            if let value = value(of: expression, at: watermark, inputTypes: inputTypes, context: context) {
                derived.append(Watermark(column: position, value: value))
            }
        }
        return derived
    }

    /// `expression`'s value where its input's column `watermark.column` is the watermark, when
    /// the expression reads only that column and never decreases as it grows; nil otherwise.
    static func value(of expression: ScalarExpr, at watermark: Watermark, inputTypes: [DataType], context: EvaluationContext) -> Value? {
        if case .column(watermark.column, _) = expression { return watermark.value }
        guard expression.isNonDecreasing(in: watermark.column),
              let result = evaluate(expression, at: watermark, inputTypes: inputTypes, context: context), !result.isNull
        else { return nil }
        return result
    }

    /// `expression` over one row whose column `watermark.column` is the watermark (the others
    /// NULL); nil when it fails.
    private static func evaluate(_ expression: ScalarExpr, at watermark: Watermark, inputTypes: [DataType], context: EvaluationContext) -> Value? {
        let columns = inputTypes.enumerated().map { index, type in
            var builder = ColumnBuilder(type: type, capacity: 1)
            builder.append(index == watermark.column ? watermark.value : .null)
            return builder.finish()
        }
        return try? ExpressionEvaluator.evaluate(expression, on: Chunk(columns: columns, count: 1), context: context).value(at: 0)
    }

    /// The smallest element of `expression`'s array where its input's column is the watermark,
    /// for a set-returning expansion whose elements each never decrease as the column grows (a
    /// hopping window's starts).
    static func smallestElement(of expression: ScalarExpr, at watermark: Watermark, inputTypes: [DataType], context: EvaluationContext) -> Value? {
        guard case .call(let function, let arguments) = expression, function.name == "hop_starts", arguments.count == 1,
              arguments[0].isNonDecreasing(in: watermark.column),
              case .list(let elements)? = evaluate(expression, at: watermark, inputTypes: inputTypes, context: context)
        else { return nil }
        return elements.first
    }
}
