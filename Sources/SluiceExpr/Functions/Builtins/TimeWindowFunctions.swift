import SluiceCore

/// The arithmetic of time windows, `TUMBLE` and `HOP` in FROM: which window a timestamp falls
/// in. Windows are aligned to the Unix epoch plus an offset and measured in microseconds, a day
/// being 24 hours (as RisingWave and Flink measure them); months have no fixed length and are
/// refused.
///
/// `tumble_start(ts, size [, offset])` is also a function users may call, as in RisingWave.
package enum TimeWindows {
    static func overloads(named name: String) -> [Overload]? {
        switch name {
        case "tumble_start":
            return [DataType.timestamptz, .timestamp].flatMap { type in
                [Overload([type, .interval], tumbleStart(type, withOffset: false)), Overload([type, .interval, .interval], tumbleStart(type, withOffset: true))]
            }
        default: return nil
        }
    }

    /// The length of `interval` in microseconds, for a window's size, slide or offset.
    package static func microseconds(of interval: Interval, role: String) throws(SluiceError) -> Int64 {
        guard interval.months == 0 else {
            throw SluiceError(
                .featureNotSupported, "a window \(role) measured in months or years is not supported",
                hint: "Use days or smaller units: months have no fixed length.")
        }
        let (days, overflow) = Int64(interval.days).multipliedReportingOverflow(by: 86_400_000_000)
        let (total, overflowSum) = days.addingReportingOverflow(interval.microseconds)
        guard !overflow, !overflowSum else { throw SluiceError(.datetimeFieldOverflow, "window \(role) out of range") }
        return total
    }

    /// The start of the window of `size` (> 0) holding `timestamp`, windows beginning at
    /// `offset` past the epoch and every `size` before and after it. Infinities stay as they are.
    @inline(__always)
    package static func start(of timestamp: Int64, size: Int64, offset: Int64) throws(SluiceError) -> Int64 {
        if timestamp == .max || timestamp == .min { return timestamp }
        let (shifted, overflow) = timestamp.subtractingReportingOverflow(offset % size)
        guard !overflow else { throw SluiceError(.datetimeFieldOverflow, "timestamp out of range") }
        var remainder = shifted % size
        if remainder < 0 { remainder += size }
        return timestamp - remainder
    }

    /// `tumble_start(ts, size [, offset])`: the start of the window holding `ts`.
    static func tumbleStart(_ type: DataType, withOffset: Bool) -> ScalarFunction {
        let parameters: [DataType] = withOffset ? [type, .interval, .interval] : [type, .interval]
        return ScalarFunction(name: "tumble_start", argumentTypes: parameters, resultType: type) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let timestamps = Int64.elements(of: arguments[0].storage)
            let sizes = Interval.elements(of: arguments[1].storage)
            let offsets = withOffset ? Interval.elements(of: arguments[2].storage) : []
            var cached: (Interval, Interval, Int64, Int64)?
            return try Kernels.values(arguments, rowCount: rowCount, type: type) { (rowIndex: Int) throws(SluiceError) -> Int64 in
                let sizeValue = sizes[rowIndex]
                let offsetValue = withOffset ? offsets[rowIndex] : Interval()
                let size: Int64
                let offset: Int64
                if let cached, cached.0 == sizeValue, cached.1 == offsetValue {
                    (size, offset) = (cached.2, cached.3)
                } else {
                    size = try windowSize(sizeValue, role: "size")
                    offset = try microseconds(of: offsetValue, role: "offset")
                    cached = (sizeValue, offsetValue, size, offset)
                }
                return try start(of: timestamps[rowIndex], size: size, offset: offset)
            }
        }
    }

    /// The size or slide of a window in microseconds, which must be positive.
    package static func windowSize(_ interval: Interval, role: String) throws(SluiceError) -> Int64 {
        let size = try microseconds(of: interval, role: role)
        guard size > 0 else { throw SluiceError(.invalidParameterValue, "window \(role) must be positive") }
        return size
    }

    /// `timestamp + size`, for a window's end: fixed microseconds, whatever the session's zone.
    package static func end(_ type: DataType, size: Int64) -> ScalarFunction {
        ScalarFunction(name: "window_end", argumentTypes: [type], resultType: type) {
            (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unary(arguments[0], resultType: type) { (start: Int64) throws(SluiceError) -> Int64 in
                if start == .max || start == .min { return start }
                let (end, overflow) = start.addingReportingOverflow(size)
                guard !overflow else { throw SluiceError(.datetimeFieldOverflow, "timestamp out of range") }
                return end
            }
        }.withOrigin(.windowEnd(type, size: size))
    }

    /// The starts of the `size / slide` hopping windows that hold each timestamp, earliest
    /// first, as an array for a set-returning expansion.
    package static func hopStarts(_ type: DataType, slide: Int64, size: Int64, offset: Int64) -> ScalarFunction {
        let count = Int(size / slide)
        return ScalarFunction(name: "hop_starts", argumentTypes: [type], resultType: .list(type)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let timestamps = Int64.elements(of: arguments[0].storage)
            let validity = arguments[0].validity
            var starts: [Int64] = []
            starts.reserveCapacity(rowCount * count)
            var offsets: [Int32] = [0]
            offsets.reserveCapacity(rowCount + 1)
            for rowIndex in 0 ..< rowCount {
                if validity?[rowIndex] ?? true {
                    let timestamp = timestamps[rowIndex]
                    let last = try start(of: timestamp, size: slide, offset: offset)
                    if last == .max || last == .min {
                        starts.append(last)
                    } else {
                        // The earliest window still holding the timestamp starts (count - 1)
                        // slides before the latest.
                        for step in stride(from: count - 1, through: 0, by: -1) {
                            let (back, overflow) = Int64(step).multipliedReportingOverflow(by: slide)
                            let (first, underflow) = last.subtractingReportingOverflow(back)
                            if overflow || underflow { continue }
                            starts.append(first)
                        }
                    }
                }
                offsets.append(Int32(starts.count))
            }
            let elements = Column(type: type, storage: .int64(starts))
            return Column(type: .list(type), storage: .list(offsets: offsets, elements: elements), validity: validity)
        }.withOrigin(.hopStarts(type, slide: slide, size: size, offset: offset))
    }

    /// The ends of the cumulating windows that hold each timestamp (Flink's CUMULATE): the
    /// windows of a `size` period all start where it starts and end `step`, `2 × step`, … `size`
    /// after, so a timestamp is in those ending after it, earliest first.
    package static func cumulateEnds(_ type: DataType, step: Int64, size: Int64, offset: Int64) -> ScalarFunction {
        let count = Int(size / step)
        return ScalarFunction(name: "cumulate_ends", argumentTypes: [type], resultType: .list(type)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let timestamps = Int64.elements(of: arguments[0].storage)
            let validity = arguments[0].validity
            var ends: [Int64] = []
            ends.reserveCapacity(rowCount * (count + 1) / 2)
            var offsets: [Int32] = [0]
            offsets.reserveCapacity(rowCount + 1)
            for rowIndex in 0 ..< rowCount {
                if validity?[rowIndex] ?? true {
                    let timestamp = timestamps[rowIndex]
                    let first = try start(of: timestamp, size: size, offset: offset)
                    if first == .max || first == .min {
                        ends.append(first)
                    } else {
                        // The windows ending after the timestamp: from the step it falls in to the period's end.
                        let into = Int((timestamp - first) / step)
                        for k in (into + 1) ... count {
                            let (length, overflow) = Int64(k).multipliedReportingOverflow(by: step)
                            let (end, beyond) = first.addingReportingOverflow(length)
                            if overflow || beyond { continue }
                            ends.append(end)
                        }
                    }
                }
                offsets.append(Int32(ends.count))
            }
            let elements = Column(type: type, storage: .int64(ends))
            return Column(type: .list(type), storage: .list(offsets: offsets, elements: elements), validity: validity)
        }.withOrigin(.cumulateEnds(type, step: step, size: size, offset: offset))
    }
}
