import SluiceCore

extension ScalarExpr {
    /// Whether the expression reads only column `column` and never decreases as it grows: the
    /// column itself, a time window's start or end, the column plus or minus a constant
    /// interval, `date_trunc` of it. Such an expression carries a watermark on the column: its
    /// value at the watermark bounds its later values from below.
    package func isNonDecreasing(in column: Int) -> Bool {
        switch self {
        case .column(let index, _):
            return index == column
        case .call(let function, let arguments):
            switch (function.name, arguments.count) {
            case ("tumble_start", _), ("window_end", 1), ("hop_starts", 1):
                return arguments[0].isNonDecreasing(in: column) && arguments.dropFirst().allSatisfy(\.isConstant)
            case ("date_trunc", 2):
                return arguments[0].isConstant && arguments[1].isNonDecreasing(in: column)
            case ("+", 2):
                return (arguments[0].isNonDecreasing(in: column) && arguments[1].isConstantInterval)
                    || (arguments[0].isConstantInterval && arguments[1].isNonDecreasing(in: column))
            case ("-", 2):
                return arguments[0].isNonDecreasing(in: column) && arguments[1].isConstantInterval
            default:
                return false
            }
        default:
            return false
        }
    }

    private var isConstantInterval: Bool { type == .interval && isConstant }
}
