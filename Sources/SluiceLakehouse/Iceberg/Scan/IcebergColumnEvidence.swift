import SluiceCore

/// What metadata says about one column's values in a unit of data (a manifest, a data file,
/// a row group, a partition): bounds of the values that are neither null nor NaN, and whether
/// nulls, non-null values and NaNs occur. Every member may be unknown; unknown never prunes.
///
/// One evaluator serves every level, so the rules of Iceberg's inclusive metrics evaluation
/// (spec: "Scan Planning") are written once.
package struct IcebergColumnEvidence {
    /// A lower bound of the values that are neither null nor NaN.
    var lower: Value?
    /// An upper bound of the values that are neither null nor NaN.
    var upper: Value?
    /// Whether some value is null; nil when unknown.
    var hasNulls: Bool?
    /// Whether some value is not null (NaN counts); nil when unknown, false when all are null.
    var hasNonNulls: Bool?
    /// Whether some value is NaN; nil when unknown (always false for non-float columns).
    var hasNaN: Bool?

    /// The evidence of one known value (a partition value shared by every row of a file).
    package init(single value: Value) {
        if value.isNull {
            self.init(hasNulls: true, hasNonNulls: false, hasNaN: false)
        } else if IcebergValueOrder.isNaN(value) {
            self.init(hasNulls: false, hasNonNulls: true, hasNaN: true)
        } else {
            self.init(lower: value, upper: value, hasNulls: false, hasNonNulls: true, hasNaN: false)
        }
    }

    /// Evidence from counts as manifests and Parquet footers keep them: `valueCount` includes
    /// nulls and NaNs. A NaN bound (written by old writers) is dropped.
    package init(lower: Value?, upper: Value?, valueCount: Int64?, nullCount: Int64?, nanCount: Int64?) {
        let lower = lower.flatMap { IcebergValueOrder.isNaN($0) ? nil : $0 }
        let upper = upper.flatMap { IcebergValueOrder.isNaN($0) ? nil : $0 }
        var hasNonNulls: Bool?
        if let valueCount, let nullCount, valueCount >= 0, nullCount >= 0 {
            hasNonNulls = valueCount > nullCount
        } else if lower != nil || upper != nil {
            hasNonNulls = true
        }
        self.init(lower: lower, upper: upper, hasNulls: nullCount.map { $0 > 0 }, hasNonNulls: hasNonNulls, hasNaN: nanCount.map { $0 > 0 })
    }

    init(lower: Value? = nil, upper: Value? = nil, hasNulls: Bool? = nil, hasNonNulls: Bool? = nil, hasNaN: Bool? = nil) {
        self.lower = lower
        self.upper = upper
        self.hasNulls = hasNulls
        self.hasNonNulls = hasNonNulls
        self.hasNaN = hasNaN
    }

    /// Whether a row of the unit may satisfy `term`; false only when the evidence proves none can.
    package func mayMatch(_ term: IcebergScanTerm) -> Bool {
        switch term {
        case .isNull:
            return hasNulls != false
        case .isNotNull:
            return hasNonNulls != false
        case .compare(_, let comparison, let literal):
            if hasNonNulls == false { return false }
            return mayMatch(comparison, literal)
        case .isIn(_, let literals):
            if hasNonNulls == false { return false }
            let candidates = literals.filter { !$0.isNull }
            // IN of nothing but nulls matches no row, but a literal list that odd is left alone.
            if candidates.isEmpty { return true }
            return candidates.contains { mayMatch(.equal, $0) }
        }
    }

    private func mayMatch(_ comparison: IcebergComparison, _ literal: Value) -> Bool {
        if literal.isNull || IcebergValueOrder.isNaN(literal) { return true }
        // Order of the lower bound against the literal, and of the upper bound against it.
        let lowerOrder = lower.flatMap { IcebergValueOrder.compare($0, literal) }
        // NaN sorts above everything, and bounds leave NaNs out: an upper bound says nothing
        // about `>` unless the unit is known to hold no NaN.
        let upperHoldsForGreater = hasNaN == false || !(upper.map(IcebergValueOrder.isFloatingPoint) ?? false)
        let upperOrder = upperHoldsForGreater ? upper.flatMap { IcebergValueOrder.compare($0, literal) } : nil
        switch comparison {
        case .lessThan:
            if let lowerOrder, lowerOrder >= 0 { return false }
        case .lessThanOrEqual:
            if let lowerOrder, lowerOrder > 0 { return false }
        case .greaterThan:
            if let upperOrder, upperOrder <= 0 { return false }
        case .greaterThanOrEqual:
            if let upperOrder, upperOrder < 0 { return false }
        case .equal:
            if let lowerOrder, lowerOrder > 0 { return false }
            // Equality with a non-NaN literal never matches a NaN, so the upper bound holds.
            if let order = upper.flatMap({ IcebergValueOrder.compare($0, literal) }), order < 0 { return false }
        }
        return true
    }
}
