import SluiceCore
import SluiceExpr

extension TableFunction {
    /// The rows of this function over `arguments` (constants, evaluated once), a chunk of at most
    /// ``Chunk/preferredSize`` rows per call of the returned function, nil at the end: a series
    /// of any length holds one chunk. The batch executor streams them; a materialized view emits
    /// them when it starts.
    package func rows(arguments: [ScalarExpr], types: [DataType], context: EvaluationContext) throws(SluiceError) -> () throws(SluiceError) -> Chunk? {
        let single = Chunk(columns: [], count: 1)
        var values: [Value] = []
        for argument in arguments { values.append(try ExpressionEvaluator.evaluate(argument, on: single, context: context).value(at: 0)) }
        return try rows(values: values, types: types)
    }

    /// The rows of this function over argument `values`, as ``rows(arguments:types:context:)``
    /// gives them.
    package func rows(values: [Value], types: [DataType]) throws(SluiceError) -> () throws(SluiceError) -> Chunk? {
        switch self {
        case .unnest:
            var builder = ColumnBuilder(type: types[0])
            if case .list(let elements) = values[0] { for element in elements { builder.append(element) } }
            let all = Chunk(columns: [builder.finish()])
            var start = 0
            return { () throws(SluiceError) -> Chunk? in
                guard start < all.count else { return nil }
                defer { start += Chunk.preferredSize }
                return all.slice(start ..< min(all.count, start + Chunk.preferredSize))
            }
        case .generateTimestampSeries, .timestampRange:
            return try Self.timestampSeries(values, type: types[0], inclusive: self == .generateTimestampSeries)
        case .generateSeries, .range:
            guard case .int64(let start) = values[0], case .int64(var stop) = values[1] else { return { () throws(SluiceError) -> Chunk? in nil } }
            var step: Int64 = 1
            if values.count > 2 {
                guard case .int64(let given) = values[2] else { return { () throws(SluiceError) -> Chunk? in nil } }
                step = given
            }
            if step == 0 { throw SluiceError(.invalidParameterValue, "step size cannot equal zero") }
            if self == .range {
                // Without `stop`: the last value is at most `stop - 1` (at least `stop + 1`
                // going down); none when that passes the ends of bigint.
                if step > 0 {
                    guard stop > Int64.min else { return { () throws(SluiceError) -> Chunk? in nil } }
                    stop -= 1
                } else {
                    guard stop < Int64.max else { return { () throws(SluiceError) -> Chunk? in nil } }
                    stop += 1
                }
            }
            // The values left, as a magnitude (a series over the whole bigint range has 2^64).
            let span = step > 0 ? (stop >= start ? UInt64(bitPattern: stop &- start) / UInt64(step) + 1 : 0)
                : (start >= stop ? UInt64(bitPattern: start &- stop) / step.magnitude + 1 : 0)
            var remaining = span
            var next = start
            let isInt32 = types[0] == .int32
            return { () throws(SluiceError) -> Chunk? in
                guard remaining > 0 else { return nil }
                let count = Int(min(remaining, UInt64(Chunk.preferredSize)))
                remaining -= UInt64(count)
                let column: Column
                if isInt32 {
                    var out = [Int32](repeating: 0, count: count)
                    for index in 0 ..< count {
                        out[index] = Int32(truncatingIfNeeded: next)
                        next &+= step
                    }
                    column = Column(type: .int32, storage: .int32(out), validity: nil)
                } else {
                    var out = [Int64](repeating: 0, count: count)
                    for index in 0 ..< count {
                        out[index] = next
                        next &+= step
                    }
                    column = Column(type: .int64, storage: .int64(out), validity: nil)
                }
                return Chunk(columns: [column], count: count)
            }
        }
    }

    /// `generate_series` and `range` over timestamps: `start`, `start + step`, … while not past
    /// `stop` (before it, for `range`), as PostgreSQL's `generate_series_timestamp` steps: each
    /// value is the previous one plus the interval.
    private static func timestampSeries(_ values: [Value], type: DataType, inclusive: Bool) throws(SluiceError) -> () throws(SluiceError) -> Chunk? {
        func micros(_ value: Value) -> Int64? {
            switch value {
            case .timestamp(let micros), .timestamptz(let micros): micros
            default: nil
            }
        }
        guard let start = micros(values[0]), let stop = micros(values[1]), case .interval(let step) = values[2] else {
            return { () throws(SluiceError) -> Chunk? in nil }
        }
        // An interval's sign as PostgreSQL compares it: months as 30 days, days as 24 hours.
        let span = step.comparableMicroseconds
        if span == 0 { throw SluiceError(.invalidParameterValue, "step size cannot equal zero") }
        let ascending = span > 0
        var next: Int64? = start
        return { () throws(SluiceError) -> Chunk? in
            var out: [Int64] = []
            while out.count < Chunk.preferredSize, let current = next {
                let within = ascending ? (inclusive ? current <= stop : current < stop) : (inclusive ? current >= stop : current > stop)
                guard within else {
                    next = nil
                    break
                }
                out.append(current)
                do {
                    next = try TimestampArithmetic.add(step, to: current)
                } catch {
                    next = nil  // past the last timestamp: the series ends there, as in PostgreSQL
                }
            }
            guard !out.isEmpty else { return nil }
            return Chunk(columns: [Column(type: type, storage: .int64(out), validity: nil)], count: out.count)
        }
    }
}
