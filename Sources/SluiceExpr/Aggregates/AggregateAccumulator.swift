import SluiceCore

/// One aggregate function's state for many groups: typed arrays indexed by group, updated a
/// chunk at a time (one dynamic call per chunk, then a tight loop over its rows). The one
/// implementation of each function, shared by the batch executor's GROUP BY (inserts only) and
/// the stream aggregate (inserts and deletes; a group's state saved to and loaded from its
/// state table as ``stateTypes`` columns).
///
/// count, sum, avg, bool_and, bool_or and the bit_ aggregates are retractable: a row with sign -1 takes back what
/// the same row with sign 1 added. min and max here keep the extreme so far and accept inserts
/// only (the stream aggregate keeps an ordered multiset per group under deletes); string_agg and
/// array_agg here collect in input order, inserts only, and keep no state row (the stream
/// aggregate keeps their elements in ordered state).
package protocol AggregateAccumulator: AnyObject {
    /// The columns of one group's state in a state table.
    var stateTypes: [DataType] { get }
    /// Folds rows into their groups: row `i` into group `groups[i]` (all into group 0 when
    /// `groups` is empty), added when `signs` is nil or `signs[i]` is 1, taken back when it is
    /// -1; only the rows in `rows` (nil: all `rowCount`). Groups `0 ..< groupCount` exist after.
    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError)
    /// The result of every group `0 ..< groupCount`.
    func finish(groupCount: Int) throws(SluiceError) -> Column
    /// Appends group `group`'s state, one value per ``stateTypes`` column, to
    /// `builders[offset...]`.
    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int)
    /// Makes group `group` (created if needed) hold the state saved in row `row` of
    /// `columns[offset...]`.
    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) throws(SluiceError)
    /// Forgets every group, keeping the arrays' capacity.
    func removeAll()
}

/// Builds the accumulator of each aggregate function.
package enum AggregateAccumulators {
    /// The accumulator of `kind` over arguments of `argumentType` (nil for count(*)), giving
    /// `resultType` (``AggregateKind/resultType(for:)``).
    package static func make(kind: AggregateKind, argumentType: DataType?, resultType: DataType) -> any AggregateAccumulator {
        switch (kind, argumentType) {
        case (.countStar, _): return CountAccumulator(countsRows: true)
        case (.count, _): return CountAccumulator(countsRows: false)
        case (.sum, let type?), (.avg, let type?):
            let average = kind == .avg
            switch type {
            case .int16, .int32, .int64: return IntegerSumAccumulator(average: average, resultType: resultType)
            case .float32, .float64: return SumAccumulator<Double>(average: average, resultType: resultType)
            case .interval: return SumAccumulator<Interval>(average: average, resultType: resultType)
            default: return SumAccumulator<Decimal>(average: average, resultType: resultType)
            }
        case (.min, .int64?), (.max, .int64?):
            return Int64ExtremeAccumulator(isMax: kind == .max, resultType: resultType)
        case (.min, _), (.max, _):
            return ExtremeAccumulator(isMax: kind == .max, resultType: resultType)
        case (.boolAnd, _), (.boolOr, _):
            return BoolAccumulator(isAnd: kind == .boolAnd)
        case (.bitAnd, _), (.bitOr, _), (.bitXor, _):
            return BitAccumulator(operation: kind == .bitAnd ? .and : (kind == .bitOr ? .or : .xor), resultType: resultType)
        case (.stringAgg, _):
            return StringAggAccumulator()
        case (.arrayAgg, _), (.sum, nil), (.avg, nil):
            return ArrayAggAccumulator(resultType: resultType)
        }
    }
}

/// Runs `body(row, group, sign)` for every row an update feeds: the rows in `rows` (or all),
/// each with its group (0 when `groups` is empty) and sign (1 when `signs` is nil).
@inline(__always)
func forEachRow<E: Error>(
    groups: [Int32], rowCount: Int, signs: [Int8]?, rows: [Int]?, _ body: (Int, Int, Int8) throws(E) -> Void
) throws(E) {
    let global = groups.isEmpty
    if let rows {
        for row in rows { try body(row, global ? 0 : Int(groups[row]), signs?[row] ?? 1) }
    } else {
        for row in 0 ..< rowCount { try body(row, global ? 0 : Int(groups[row]), signs?[row] ?? 1) }
    }
}

/// Grows `array` to `count` elements of `fill`.
@inline(__always)
func growArray<Element>(_ array: inout [Element], to count: Int, with fill: Element) {
    if array.count + 1 == count {
        array.append(fill)
    } else if array.count < count {
        array += repeatElement(fill, count: count - array.count)
    }
}

/// count(*) (`countsRows`) and count(x): one `Int64` per group.
package final class CountAccumulator: AggregateAccumulator {
    let countsRows: Bool
    private var counts: [Int64] = []

    package init(countsRows: Bool) { self.countsRows = countsRows }

    /// Group `group`'s count.
    package func count(at group: Int) -> Int64 { counts[group] }

    /// The counts of `groups`, in that order (a gather: one tight loop, its loads independent).
    package func counts(of groups: [Int]) -> [Int64] { counts.withUnsafeBufferPointer { counts in groups.map { counts[$0] } } }

    package func set(count: Int64, at group: Int) { counts[group] = count }

    /// Makes groups `0 ..< count` exist, new ones at zero.
    package func grow(to count: Int) { growArray(&counts, to: count, with: 0) }

    /// The bytes the arrays take.
    package var bytes: Int { counts.capacity * 8 }

    package var stateTypes: [DataType] { [.int64] }

    package func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?) {
        growArray(&counts, to: groupCount, with: 0)
        let validity = countsRows ? nil : argument?.validity
        if signs == nil && validity == nil && rows == nil {
            if groups.isEmpty {
                counts[0] += Int64(rowCount)
                return
            }
            counts.withUnsafeMutableBufferPointer { counts in
                for group in groups { counts[Int(group)] += 1 }
            }
            return
        }
        counts.withUnsafeMutableBufferPointer { counts in
            forEachRow(groups: groups, rowCount: rowCount, signs: signs, rows: rows) { row, group, sign in
                if validity?[row] ?? true { counts[group] += Int64(sign) }
            }
        }
    }

    package func finish(groupCount: Int) -> Column {
        growArray(&counts, to: groupCount, with: 0)
        return Column(type: .int64, storage: .int64(Array(counts.prefix(groupCount))))
    }

    package func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        builders[offset].append(int64: group < counts.count ? counts[group] : 0)
    }

    package func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        growArray(&counts, to: group + 1, with: 0)
        counts[group] = columns[offset].isNull(row) ? 0 : columns[offset].int64(at: row)
    }

    package func removeAll() { counts.removeAll(keepingCapacity: true) }
}

/// sum and avg of smallint, integer and bigint: 128-bit sums and value counts. The state row is
/// the sum as numeric (NULL before any value) and the count.
package final class IntegerSumAccumulator: AggregateAccumulator {
    let average: Bool
    let resultType: DataType
    private var sums: [Int128] = []
    private var counts: [Int64] = []

    package init(average: Bool, resultType: DataType) {
        self.average = average
        self.resultType = resultType
    }

    /// Group `group`'s sum and number of values summed.
    package func sum(at group: Int) -> Int128 { sums[group] }
    package func count(at group: Int) -> Int64 { counts[group] }

    /// The counts and the sums of `groups`, in that order.
    package func counts(of groups: [Int]) -> [Int64] { counts.withUnsafeBufferPointer { counts in groups.map { counts[$0] } } }
    package func sums(of groups: [Int]) -> [Int128] { sums.withUnsafeBufferPointer { sums in groups.map { sums[$0] } } }

    package func set(sum: Int128, count: Int64, at group: Int) {
        sums[group] = sum
        counts[group] = count
    }

    /// Makes groups `0 ..< count` exist, new ones at zero.
    package func grow(to count: Int) {
        growArray(&sums, to: count, with: 0)
        growArray(&counts, to: count, with: 0)
    }

    /// The bytes the arrays take.
    package var bytes: Int { sums.capacity * 16 + counts.capacity * 8 }

    package var stateTypes: [DataType] { [.numeric, .int64] }

    package func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?) {
        growArray(&sums, to: groupCount, with: 0)
        growArray(&counts, to: groupCount, with: 0)
        guard let argument else { return }
        switch argument.storage {
        case .int64(let values): fold(values, argument.validity, groups, rowCount, signs, rows)
        case .int32(let values): fold(values, argument.validity, groups, rowCount, signs, rows)
        case .int16(let values): fold(values, argument.validity, groups, rowCount, signs, rows)
        default: return
        }
    }

    private func fold<T: BinaryInteger>(_ values: [T], _ validity: Bitmap?, _ groups: [Int32], _ rowCount: Int, _ signs: [Int8]?, _ rows: [Int]?) {
        sums.withUnsafeMutableBufferPointer { sums in
            counts.withUnsafeMutableBufferPointer { counts in
                values.withUnsafeBufferPointer { values in
                    if signs == nil && validity == nil && rows == nil {
                        if groups.isEmpty {
                            var total: Int128 = 0
                            for value in values { total &+= Int128(value) }
                            sums[0] &+= total
                            counts[0] &+= Int64(values.count)
                            return
                        }
                        groups.withUnsafeBufferPointer { groups in
                            for row in 0 ..< values.count {
                                let group = Int(groups[row])
                                sums[group] &+= Int128(values[row])
                                counts[group] &+= 1
                            }
                        }
                        return
                    }
                    forEachRow(groups: groups, rowCount: rowCount, signs: signs, rows: rows) { row, group, sign in
                        guard validity?[row] ?? true else { return }
                        sums[group] &+= Int128(values[row]) * Int128(sign)
                        counts[group] &+= Int64(sign)
                    }
                }
            }
        }
    }

    package func finish(groupCount: Int) throws(SluiceError) -> Column {
        growArray(&sums, to: groupCount, with: 0)
        growArray(&counts, to: groupCount, with: 0)
        var validity = Bitmap(count: groupCount, value: true)
        if resultType == .int64 && !average {
            var output = [Int64](repeating: 0, count: groupCount)
            for group in 0 ..< groupCount {
                if counts[group] == 0 {
                    validity[group] = false
                } else {
                    guard let value = Int64(exactly: sums[group]) else { throw SluiceError(.numericValueOutOfRange, "bigint out of range") }
                    output[group] = value
                }
            }
            return Column(type: resultType, storage: .int64(output), validity: validity)
        }
        var output: [Decimal] = []
        output.reserveCapacity(groupCount)
        for group in 0 ..< groupCount {
            if counts[group] == 0 {
                validity[group] = false
                output.append(.zero)
            } else if average {
                output.append(try Decimal.dividing(Decimal(mantissa: sums[group], scale: 0), Decimal(counts[group])))
            } else {
                output.append(Decimal(mantissa: sums[group], scale: 0))
            }
        }
        return Column(type: resultType, storage: .decimal(output), validity: validity)
    }

    package func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        let count = group < counts.count ? counts[group] : 0
        if count == 0 { builders[offset].appendNull() } else { builders[offset].append(decimal: Decimal(mantissa: sums[group], scale: 0)) }
        builders[offset + 1].append(int64: count)
    }

    package func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) throws(SluiceError) {
        growArray(&sums, to: group + 1, with: 0)
        growArray(&counts, to: group + 1, with: 0)
        sums[group] = columns[offset].isNull(row) ? 0 : try columns[offset].decimal(at: row).rescaled(to: 0).mantissa
        counts[group] = columns[offset + 1].isNull(row) ? 0 : columns[offset + 1].int64(at: row)
    }

    package func removeAll() {
        sums.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
    }
}

/// A running sum's arithmetic, for ``SumAccumulator``: numeric exactly, floats as double
/// precision, intervals as intervals.
protocol RunningSum {
    static var zero: Self { get }
    /// Grows `sums` to `count` zeros (each type's own code: growing an array of a generic
    /// element goes through the runtime's generic metadata, element by element).
    static func grow(_ sums: inout [Self], to count: Int)
    /// The sums (or averages) of the first `count` groups, with counts `counts`, as a column of
    /// `type`: NULL where a group counted nothing. (Each type's own loop too.)
    static func results(
        sums: [Self], counts: [Int64], specials: [SpecialCounts], count: Int, average: Bool, type: DataType
    ) throws(SluiceError) -> Column
    /// The type the sum is kept as in a state row.
    static var stateType: DataType { get }
    /// `sum + value`, or `sum - value` for a negative `sign`.
    static func add(_ sum: Self, _ value: Self, sign: Int8) throws(SluiceError) -> Self
    static func average(_ sum: Self, count: Int64) throws(SluiceError) -> Self
    /// A column's values as sums' addends (nil: a layout the sum does not take).
    static func addends(_ column: Column) -> [Self]?
    /// The results of `sums` as a column of `type`.
    static func column(_ sums: [Self], validity: Bitmap, type: DataType) -> Column
    static func append(_ sum: Self, to builder: inout ColumnBuilder)
    /// Adds each of the first `rowCount` values not null in `validity` to its group's sum and
    /// count (`groups` empty: all to group 0). Each type's own loop, so the loop holds no
    /// generic code.
    static func accumulate(
        _ values: [Self], validity: Bitmap?, groups: [Int32], rowCount: Int, sums: inout [Self], counts: inout [Int64]
    ) throws(SluiceError)
    /// Whether values may be special (numeric NaN and infinities), counted apart from the sum
    /// so that taking one back restores the sum before it (Postgres's `NumericSumAccum` keeps
    /// the same counts for its moving aggregates).
    static var tracksSpecials: Bool { get }
    /// 0, 1 or 2 for NaN, an infinity and a negative infinity; nil for finite values.
    static func specialIndex(_ value: Self) -> Int?
    /// Whether any of the first `count` of `values` is special (each type's own loop).
    static func containsSpecial(_ values: [Self], count: Int) -> Bool
    /// The sum of finite values `sum` and of the counted special values.
    static func resolve(_ sum: Self, specials: SpecialCounts) -> Self
}

/// How many NaN, infinite and negatively infinite values a numeric sum holds.
struct SpecialCounts: Sendable {
    var counts: (Int64, Int64, Int64) = (0, 0, 0)

    var isEmpty: Bool { counts == (0, 0, 0) }

    mutating func add(_ index: Int, _ sign: Int8) {
        switch index {
        case 0: counts.0 += Int64(sign)
        case 1: counts.1 += Int64(sign)
        default: counts.2 += Int64(sign)
        }
    }
}

extension RunningSum {
    static func grow(_ sums: inout [Self], to count: Int) { growArray(&sums, to: count, with: zero) }

    static func results(
        sums: [Self], counts: [Int64], specials: [SpecialCounts], count: Int, average: Bool, type: DataType
    ) throws(SluiceError) -> Column {
        var output: [Self] = []
        output.reserveCapacity(count)
        var validity = Bitmap(count: count, value: true)
        for group in 0 ..< count {
            if counts[group] == 0 {
                validity[group] = false
                output.append(zero)
            } else if tracksSpecials, group < specials.count, !specials[group].isEmpty {
                output.append(resolve(sums[group], specials: specials[group]))
            } else {
                output.append(average ? try Self.average(sums[group], count: counts[group]) : sums[group])
            }
        }
        return column(output, validity: validity, type: type)
    }

    static var tracksSpecials: Bool { false }
    static func specialIndex(_ value: Self) -> Int? { nil }
    static func containsSpecial(_ values: [Self], count: Int) -> Bool { false }
    static func resolve(_ sum: Self, specials: SpecialCounts) -> Self { sum }

    static func accumulate(
        _ values: [Self], validity: Bitmap?, groups: [Int32], rowCount: Int, sums: inout [Self], counts: inout [Int64]
    ) throws(SluiceError) {
        let global = groups.isEmpty
        for row in 0 ..< rowCount where validity?[row] ?? true {
            let group = global ? 0 : Int(groups[row])
            sums[group] = try add(sums[group], values[row], sign: 1)
            counts[group] += 1
        }
    }
}

extension Decimal: RunningSum {
    static var stateType: DataType { .numeric }
    static var tracksSpecials: Bool { true }

    static func specialIndex(_ value: Decimal) -> Int? {
        guard value.isSpecial else { return nil }
        return value.isNaN ? 0 : (value.mantissa > 0 ? 1 : 2)
    }

    static func containsSpecial(_ values: [Decimal], count: Int) -> Bool {
        values.withUnsafeBufferPointer { values in
            var found = false
            for index in 0 ..< min(count, values.count) where values[index].scale == Decimal.specialScale { found = true }
            return found
        }
    }

    /// NaN if a NaN or both infinities are in, else the infinity that is, else the sum.
    static func resolve(_ sum: Decimal, specials: SpecialCounts) -> Decimal {
        let (nans, positive, negative) = specials.counts
        if nans > 0 || (positive > 0 && negative > 0) { return .nan }
        if positive > 0 { return .infinity }
        if negative > 0 { return .negativeInfinity }
        return sum
    }

    static func accumulate(
        _ values: [Decimal], validity: Bitmap?, groups: [Int32], rowCount: Int, sums: inout [Decimal], counts: inout [Int64]
    ) throws(SluiceError) {
        let limit = Decimal.maximumMantissa
        // The sums and counts through their buffers; a value that takes the slow path (another
        // scale, an overflow) is added after the buffers are let go, so `adding` can throw.
        var pending: [Int] = []
        values.withUnsafeBufferPointer { values in
            groups.withUnsafeBufferPointer { groups in
                sums.withUnsafeMutableBufferPointer { sums in
                    counts.withUnsafeMutableBufferPointer { counts in
                        for row in 0 ..< rowCount where validity?[row] ?? true {
                            let group = groups.isEmpty ? 0 : Int(groups[row])
                            let value = values[row]
                            // The common case, a sum at the value's scale, here (no call into
                            // Decimal's module).
                            if sums[group].scale == value.scale {
                                let (sum, overflow) = sums[group].mantissa.addingReportingOverflow(value.mantissa)
                                if !overflow, sum <= limit, sum >= -limit {
                                    sums[group].mantissa = sum
                                    counts[group] += 1
                                    continue
                                }
                            } else if sums[group].mantissa == 0, sums[group].scale < value.scale {
                                // A zero sum (a group's first value) takes the larger scale,
                                // as `adding` gives it.
                                sums[group] = value
                                counts[group] += 1
                                continue
                            }
                            pending.append(row)
                        }
                    }
                }
            }
        }
        for row in pending {
            let group = groups.isEmpty ? 0 : Int(groups[row])
            sums[group] = try Decimal.adding(sums[group], values[row])
            counts[group] += 1
        }
    }

    static func add(_ sum: Decimal, _ value: Decimal, sign: Int8) throws(SluiceError) -> Decimal {
        sign > 0 ? try Decimal.adding(sum, value) : try Decimal.subtracting(sum, value)
    }

    static func average(_ sum: Decimal, count: Int64) throws(SluiceError) -> Decimal { try Decimal.dividing(sum, Decimal(count)) }

    static func addends(_ column: Column) -> [Decimal]? {
        if case .decimal(let values) = column.storage { return values }
        return nil
    }

    static func column(_ sums: [Decimal], validity: Bitmap, type: DataType) -> Column {
        Column(type: .numeric, storage: .decimal(sums), validity: validity)
    }

    static func append(_ sum: Decimal, to builder: inout ColumnBuilder) { builder.append(decimal: sum) }
}

extension Double: RunningSum {
    static var stateType: DataType { .float64 }

    static func add(_ sum: Double, _ value: Double, sign: Int8) -> Double { sign > 0 ? sum + value : sum - value }

    static func average(_ sum: Double, count: Int64) -> Double { sum / Double(count) }

    static func addends(_ column: Column) -> [Double]? {
        switch column.storage {
        case .float64(let values): values
        case .float32(let values): values.map { Double($0) }
        default: nil
        }
    }

    /// sum(real) is real; everything else double precision.
    static func column(_ sums: [Double], validity: Bitmap, type: DataType) -> Column {
        if type == .float32 { return Column(type: .float32, storage: .float32(sums.map { Float($0) }), validity: validity) }
        return Column(type: .float64, storage: .float64(sums), validity: validity)
    }

    static func append(_ sum: Double, to builder: inout ColumnBuilder) { builder.append(double: sum) }
}

extension Interval: RunningSum {
    static var zero: Interval { Interval() }
    static var stateType: DataType { .interval }

    static func add(_ sum: Interval, _ value: Interval, sign: Int8) throws(SluiceError) -> Interval {
        sign > 0 ? try IntervalArithmetic.add(sum, value) : try IntervalArithmetic.subtract(sum, value)
    }

    static func average(_ sum: Interval, count: Int64) throws(SluiceError) -> Interval {
        try IntervalArithmetic.divide(sum, by: Double(count))
    }

    static func addends(_ column: Column) -> [Interval]? {
        if case .interval(let values) = column.storage { return values }
        return nil
    }

    static func column(_ sums: [Interval], validity: Bitmap, type: DataType) -> Column {
        Column(type: .interval, storage: .interval(sums), validity: validity)
    }

    static func append(_ sum: Interval, to builder: inout ColumnBuilder) { builder.append(interval: sum) }
}

/// sum and avg of numeric, real, double precision and interval: a running sum and the number of
/// values per group. The state row is the sum (NULL before any value) and the count; for
/// numeric, then the counts of NaN, infinite and negatively infinite values, which the sum
/// leaves out.
final class SumAccumulator<Sum: RunningSum>: AggregateAccumulator {
    let average: Bool
    let resultType: DataType
    private var sums: [Sum] = []
    private var counts: [Int64] = []
    /// Per group when `Sum.tracksSpecials`, else empty.
    private var specials: [SpecialCounts] = []

    init(average: Bool, resultType: DataType) {
        self.average = average
        self.resultType = resultType
    }

    var stateTypes: [DataType] { Sum.tracksSpecials ? [Sum.stateType, .int64, .int64, .int64, .int64] : [Sum.stateType, .int64] }

    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError) {
        Sum.grow(&sums, to: groupCount)
        growArray(&counts, to: groupCount, with: 0)
        if Sum.tracksSpecials { growArray(&specials, to: groupCount, with: SpecialCounts()) }
        guard let argument, let values = Sum.addends(argument) else { return }
        let validity = argument.validity
        // The loops work on local arrays: the class's own, reached through `self` in a closure,
        // cost a generic metadata lookup per row.
        var localSums = sums
        var localCounts = counts
        sums = []
        counts = []
        defer {
            sums = localSums
            counts = localCounts
        }
        // (A numeric column with a profile has no special value.)
        let hasSpecials = Sum.tracksSpecials && argument.decimalProfile == nil && Sum.containsSpecial(values, count: rowCount)
        if signs == nil, rows == nil, !hasSpecials {
            try Sum.accumulate(values, validity: validity, groups: groups, rowCount: rowCount, sums: &localSums, counts: &localCounts)
            return
        }
        try forEachRow(groups: groups, rowCount: rowCount, signs: signs, rows: rows) { (row, group, sign) throws(SluiceError) in
            guard validity?[row] ?? true else { return }
            if hasSpecials, let index = Sum.specialIndex(values[row]) {
                specials[group].add(index, sign)
                localCounts[group] += Int64(sign)
                return
            }
            localSums[group] = try Sum.add(localSums[group], values[row], sign: sign)
            localCounts[group] += Int64(sign)
        }
    }

    func finish(groupCount: Int) throws(SluiceError) -> Column {
        Sum.grow(&sums, to: groupCount)
        growArray(&counts, to: groupCount, with: 0)
        return try Sum.results(sums: sums, counts: counts, specials: specials, count: groupCount, average: average, type: resultType)
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        let count = group < counts.count ? counts[group] : 0
        if count == 0 { builders[offset].appendNull() } else { Sum.append(sums[group], to: &builders[offset]) }
        builders[offset + 1].append(int64: count)
        if Sum.tracksSpecials {
            let counts = group < specials.count ? specials[group].counts : (0, 0, 0)
            builders[offset + 2].append(int64: counts.0)
            builders[offset + 3].append(int64: counts.1)
            builders[offset + 4].append(int64: counts.2)
        }
    }

    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        Sum.grow(&sums, to: group + 1)
        growArray(&counts, to: group + 1, with: 0)
        sums[group] = columns[offset].isNull(row) ? Sum.zero : (Sum.addends(columns[offset])?[row] ?? Sum.zero)
        counts[group] = columns[offset + 1].isNull(row) ? 0 : columns[offset + 1].int64(at: row)
        if Sum.tracksSpecials {
            growArray(&specials, to: group + 1, with: SpecialCounts())
            func count(_ index: Int) -> Int64 { columns[offset + index].isNull(row) ? 0 : columns[offset + index].int64(at: row) }
            specials[group].counts = (count(2), count(3), count(4))
        }
    }

    func removeAll() {
        sums.removeAll(keepingCapacity: true)
        counts.removeAll(keepingCapacity: true)
        specials.removeAll(keepingCapacity: true)
    }
}

/// bool_and and bool_or: the numbers of true and of false inputs per group.
final class BoolAccumulator: AggregateAccumulator {
    let isAnd: Bool
    private var trues: [Int64] = []
    private var falses: [Int64] = []

    init(isAnd: Bool) { self.isAnd = isAnd }

    var stateTypes: [DataType] { [.int64, .int64] }

    func update(groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?) {
        growArray(&trues, to: groupCount, with: 0)
        growArray(&falses, to: groupCount, with: 0)
        guard let argument, case .bool(let values) = argument.storage else { return }
        let validity = argument.validity
        forEachRow(groups: groups, rowCount: rowCount, signs: signs, rows: rows) { row, group, sign in
            guard validity?[row] ?? true else { return }
            if values[row] { trues[group] += Int64(sign) } else { falses[group] += Int64(sign) }
        }
    }

    func finish(groupCount: Int) -> Column {
        growArray(&trues, to: groupCount, with: 0)
        growArray(&falses, to: groupCount, with: 0)
        var validity = Bitmap(count: groupCount, value: true)
        var output = [Bool](repeating: false, count: groupCount)
        for group in 0 ..< groupCount {
            if trues[group] == 0 && falses[group] == 0 {
                validity[group] = false
            } else {
                output[group] = isAnd ? falses[group] == 0 : trues[group] > 0
            }
        }
        return Column(type: .boolean, storage: .bool(output), validity: validity)
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        builders[offset].append(int64: group < trues.count ? trues[group] : 0)
        builders[offset + 1].append(int64: group < falses.count ? falses[group] : 0)
    }

    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        growArray(&trues, to: group + 1, with: 0)
        growArray(&falses, to: group + 1, with: 0)
        trues[group] = columns[offset].isNull(row) ? 0 : columns[offset].int64(at: row)
        falses[group] = columns[offset + 1].isNull(row) ? 0 : columns[offset + 1].int64(at: row)
    }

    func removeAll() {
        trues.removeAll(keepingCapacity: true)
        falses.removeAll(keepingCapacity: true)
    }
}

/// The error of a delete reaching an accumulator that only adds.
private func insertOnly(_ name: String) -> SluiceError {
    SluiceError.internalError("a delete reached \(name), which keeps no multiset of its values")
}

/// min and max of bigint, inserts only: the extreme so far per group.
///
/// Whether a group has seen a value is only tracked once some chunk had NULLs, a FILTER or
/// signs: until then every group was created by a row with a value.
final class Int64ExtremeAccumulator: AggregateAccumulator {
    let isMax: Bool
    let resultType: DataType
    private var values: [Int64] = []
    /// nil while groups `0 ..< coveredCount` all have a value and there are no others.
    private var seen: [Bool]? = nil
    private var coveredCount = 0

    init(isMax: Bool, resultType: DataType) {
        self.isMax = isMax
        self.resultType = resultType
    }

    var stateTypes: [DataType] { [resultType] }

    private var start: Int64 { isMax ? .min : .max }

    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError) {
        if let signs, signs.contains(where: { $0 < 0 }) { throw insertOnly(isMax ? "max" : "min") }
        growArray(&values, to: groupCount, with: start)
        let input: [Int64]
        if let argument, case .int64(let elements) = argument.storage { input = elements } else { input = [] }
        let validity = argument?.validity
        let isMax = isMax
        // Fast: every row feeds the aggregate, so every group a row names has a value.
        let fast = argument != nil && rows == nil && validity == nil && !groups.isEmpty
        let firstNew = coveredCount
        if !(fast && seen == nil) { trackSeen(groupCount: groupCount) }
        defer { if fast && seen == nil { cover(groups, from: firstNew, to: groupCount) } }
        guard argument != nil else { return }
        if fast {
            values.withUnsafeMutableBufferPointer { values in
                input.withUnsafeBufferPointer { input in
                    groups.withUnsafeBufferPointer { groups in
                        // Separate loops, each a branch-free compare-and-select per row.
                        if isMax {
                            for row in 0 ..< input.count {
                                let group = Int(groups[row])
                                values[group] = Swift.max(values[group], input[row])
                            }
                        } else {
                            for row in 0 ..< input.count {
                                let group = Int(groups[row])
                                values[group] = Swift.min(values[group], input[row])
                            }
                        }
                    }
                }
            }
            if seen != nil {
                for group in groups { seen![Int(group)] = true }
            }
            return
        }
        forEachRow(groups: groups, rowCount: input.count, signs: nil, rows: rows) { row, group, _ in
            guard validity?[row] ?? true else { return }
            let value = input[row]
            seen![group] = true
            if isMax ? value > values[group] : value < values[group] { values[group] = value }
        }
    }

    /// After a fast update that created groups `first ..< count`: they are covered when each
    /// holds a value past the start. A group that still holds the start either was named by
    /// no row (a window's empty frame makes such groups; a GROUP BY never does) or took the
    /// start itself as its value; only then are the rows' groups marked one by one.
    private func cover(_ groups: [Int32], from first: Int, to count: Int) {
        guard count > first else { return }
        guard (first ..< count).contains(where: { values[$0] == start }) else {
            coveredCount = count
            return
        }
        var named = [Bool](repeating: true, count: first) + [Bool](repeating: false, count: count - first)
        for group in groups where Int(group) >= first { named[Int(group)] = true }
        seen = named
    }

    /// Starts (or grows) the per-group flags: groups covered so far have a value, new ones none
    /// until a row gives them one.
    private func trackSeen(groupCount: Int) {
        if seen == nil {
            seen = [Bool](repeating: true, count: coveredCount) + [Bool](repeating: false, count: max(0, groupCount - coveredCount))
        } else if seen!.count < groupCount {
            seen! += [Bool](repeating: false, count: groupCount - seen!.count)
        }
    }

    func finish(groupCount: Int) -> Column {
        growArray(&values, to: groupCount, with: start)
        if seen == nil && coveredCount >= groupCount {
            return Column(type: resultType, storage: .int64(Array(values.prefix(groupCount))))
        }
        trackSeen(groupCount: groupCount)
        let seen = self.seen!
        let output = (0 ..< groupCount).map { seen[$0] ? values[$0] : 0 }
        return Column(type: resultType, storage: .int64(output), validity: Bitmap(bits: Array(seen.prefix(groupCount))))
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        let hasValue = group < values.count && (seen.map { group < $0.count && $0[group] } ?? (group < coveredCount))
        if hasValue { builders[offset].append(int64: values[group]) } else { builders[offset].appendNull() }
    }

    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        growArray(&values, to: group + 1, with: start)
        trackSeen(groupCount: group + 1)
        if columns[offset].isNull(row) {
            values[group] = start
            seen![group] = false
        } else {
            values[group] = columns[offset].int64(at: row)
            seen![group] = true
        }
    }

    func removeAll() {
        values.removeAll(keepingCapacity: true)
        seen = nil
        coveredCount = 0
    }
}

/// min and max of any other ordered type, inserts only: the extreme so far per group.
final class ExtremeAccumulator: AggregateAccumulator {
    let isMax: Bool
    let resultType: DataType
    private var values: [Value] = []

    init(isMax: Bool, resultType: DataType) {
        self.isMax = isMax
        self.resultType = resultType
    }

    var stateTypes: [DataType] { [resultType] }

    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError) {
        if let signs, signs.contains(where: { $0 < 0 }) { throw insertOnly(isMax ? "max" : "min") }
        growArray(&values, to: groupCount, with: .null)
        guard let argument else { return }
        let isMax = isMax
        forEachRow(groups: groups, rowCount: rowCount, signs: nil, rows: rows) { row, group, _ in
            guard !argument.isNull(row) else { return }
            let value = argument.value(at: row)
            let current = values[group]
            if current.isNull {
                values[group] = value
            } else {
                let order = ValueOrdering.compare(value, current)
                if isMax ? order > 0 : order < 0 { values[group] = value }
            }
        }
    }

    func finish(groupCount: Int) -> Column {
        growArray(&values, to: groupCount, with: .null)
        var builder = ColumnBuilder(type: resultType, capacity: groupCount)
        for group in 0 ..< groupCount { builder.append(values[group]) }
        return builder.finish()
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {
        builders[offset].append(group < values.count ? values[group] : .null)
    }

    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {
        growArray(&values, to: group + 1, with: .null)
        values[group] = columns[offset].value(at: row)
    }

    func removeAll() { values.removeAll(keepingCapacity: true) }
}

/// string_agg, inserts only: each group's text so far, values joined in input order, each
/// after the first preceded by its own delimiter (a NULL delimiter counting as empty). Each
/// group's bytes grow in place, so a group of n values costs O(n), not a copy per value.
final class StringAggAccumulator: AggregateAccumulator {
    private var texts: [[UInt8]?] = []

    var stateTypes: [DataType] { [] }

    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError) {
        if let signs, signs.contains(where: { $0 < 0 }) { throw insertOnly("string_agg") }
        growArray(&texts, to: groupCount, with: nil)
        guard let argument else { return }
        forEachRow(groups: groups, rowCount: rowCount, signs: nil, rows: rows) { row, group, _ in
            guard !argument.isNull(row) else { return }
            if texts[group] == nil {
                texts[group] = []
            } else if let delimiter, !delimiter.isNull(row) {
                delimiter.appendText(at: row, to: &texts[group]!)
            }
            argument.appendText(at: row, to: &texts[group]!)
        }
    }

    func finish(groupCount: Int) -> Column {
        growArray(&texts, to: groupCount, with: nil)
        var builder = ColumnBuilder(type: .varchar, capacity: groupCount)
        for group in 0 ..< groupCount {
            guard let text = texts[group] else {
                builder.appendNull()
                continue
            }
            text.withUnsafeBytes { builder.append(bytes: $0) }
        }
        return builder.finish()
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {}
    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {}
    func removeAll() { texts.removeAll(keepingCapacity: true) }
}

/// array_agg, inserts only: every value, NULLs included, in input order.
final class ArrayAggAccumulator: AggregateAccumulator {
    let resultType: DataType
    private var elements: [[Value]?] = []

    init(resultType: DataType) { self.resultType = resultType }

    var stateTypes: [DataType] { [] }

    func update(
        groups: [Int32], rowCount: Int, groupCount: Int, argument: Column?, delimiter: Column?, signs: [Int8]?, rows: [Int]?
    ) throws(SluiceError) {
        if let signs, signs.contains(where: { $0 < 0 }) { throw insertOnly("array_agg") }
        growArray(&elements, to: groupCount, with: nil)
        guard let argument else { return }
        // (Appended in place: each group's array is not copied per value.)
        forEachRow(groups: groups, rowCount: rowCount, signs: nil, rows: rows) { row, group, _ in
            if elements[group] == nil { elements[group] = [] }
            elements[group]!.append(argument.value(at: row))
        }
    }

    func finish(groupCount: Int) -> Column {
        growArray(&elements, to: groupCount, with: nil)
        var builder = ColumnBuilder(type: resultType, capacity: groupCount)
        for group in 0 ..< groupCount { builder.append(elements[group].map { .list($0) } ?? .null) }
        return builder.finish()
    }

    func saveState(group: Int, into builders: inout [ColumnBuilder], at offset: Int) {}
    func loadState(group: Int, from columns: [Column], at offset: Int, row: Int) {}
    func removeAll() { elements.removeAll(keepingCapacity: true) }
}

extension Column {
    /// Row `row` of an integer-layout column (not NULL).
    func int64(at row: Int) -> Int64 {
        switch storage {
        case .int64(let values): values[row]
        case .int32(let values): Int64(values[row])
        case .int16(let values): Int64(values[row])
        default: 0
        }
    }

    /// Row `row` of a numeric column (not NULL).
    fileprivate func decimal(at row: Int) -> Decimal {
        if case .decimal(let values) = storage { return values[row] }
        return .zero
    }
}
