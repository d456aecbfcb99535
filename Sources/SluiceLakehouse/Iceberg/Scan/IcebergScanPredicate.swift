import SluiceCore

/// A conjunction of simple conditions on table columns, named by Iceberg field id, that a scan
/// uses to skip manifests, data files and row groups that cannot hold a matching row.
///
/// Pruning is conservative: a unit is skipped only when its metadata proves that no row in it
/// satisfies some term. Rows are never filtered; the caller still evaluates its full `WHERE`.
/// The terms follow SQL semantics: a comparison or `IN` is never true for a null column value,
/// and `NaN` sorts above every other floating-point value (as in PostgreSQL).
///
/// ```swift
/// let predicate = IcebergScanPredicate([
///     .compare(fieldID: 2, .greaterThanOrEqual, .timestamp(start)),
///     .isIn(fieldID: 3, [.string("eu"), .string("us")]),
/// ])
/// ```
package struct IcebergScanPredicate: Hashable, Sendable, CustomStringConvertible {
    /// All must hold for a row to match.
    package var terms: [IcebergScanTerm]

    package init(_ terms: [IcebergScanTerm]) {
        self.terms = terms
    }

    /// The field ids the terms refer to, in first-use order.
    package var fieldIDs: [Int] {
        var seen: Set<Int> = []
        return terms.map(\.fieldID).filter { seen.insert($0).inserted }
    }

    package var description: String {
        terms.isEmpty ? "true" : terms.map(\.description).joined(separator: " AND ")
    }
}

/// One condition of an ``IcebergScanPredicate`` on the column with Iceberg field id `fieldID`.
///
/// Literals are ``Value``s of any type comparable with the column's: integers of any width for
/// `int` and `long` columns, numbers for decimals and floats, `.timestamp`/`.timestamptz` or
/// `.date` for timestamps, and so on. A term whose literal cannot be compared with the column
/// (a string against a number, a null literal) never prunes anything.
package enum IcebergScanTerm: Hashable, Sendable, CustomStringConvertible {
    case compare(fieldID: Int, IcebergComparison, Value)
    case isNull(fieldID: Int)
    case isNotNull(fieldID: Int)
    case isIn(fieldID: Int, [Value])

    package var fieldID: Int {
        switch self {
        case .compare(let fieldID, _, _), .isNull(let fieldID), .isNotNull(let fieldID), .isIn(let fieldID, _): fieldID
        }
    }

    package var description: String {
        switch self {
        case .compare(let fieldID, let comparison, let literal): "#\(fieldID) \(comparison.symbol) \(literal)"
        case .isNull(let fieldID): "#\(fieldID) IS NULL"
        case .isNotNull(let fieldID): "#\(fieldID) IS NOT NULL"
        case .isIn(let fieldID, let literals): "#\(fieldID) IN (\(literals.map { "\($0)" }.joined(separator: ", ")))"
        }
    }
}

/// A comparison of a column with a literal, column on the left.
package enum IcebergComparison: Hashable, Sendable {
    case equal
    case lessThan
    case lessThanOrEqual
    case greaterThan
    case greaterThanOrEqual

    package var symbol: String {
        switch self {
        case .equal: "="
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        }
    }
}
