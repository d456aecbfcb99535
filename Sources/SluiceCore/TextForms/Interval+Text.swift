/// Postgres text forms of ``Interval`` (`interval_out` with `IntervalStyle = postgres`,
/// `interval_in` for the postgres, verbose and ISO 8601 forms).
extension Interval {
    /// `1 year 2 mons 3 days 04:05:06.5`, `-00:00:01`, `1 day -01:00:00`, `00:00:00`.
    package var textForm: String {
        var out = ""
        var isZero = true
        var isBefore = false
        // EncodeInterval's AddPostgresIntPart: a '+' marks a positive field after a negative one.
        func appendPart(_ value: Int64, _ unit: String) {
            guard value != 0 else { return }
            if !isZero { out += " " }
            if isBefore, value > 0 { out += "+" }
            out += "\(value) \(unit)"
            if value != 1 { out += "s" }
            isBefore = value < 0
            isZero = false
        }
        appendPart(Int64(months / 12), "year")
        appendPart(Int64(months % 12), "mon")
        appendPart(Int64(days), "day")
        if isZero || microseconds != 0 {
            if !isZero { out += " " }
            if microseconds < 0 {
                out += "-"
            } else if isBefore {
                out += "+"
            }
            let magnitude = microseconds.magnitude
            let hours = magnitude / UInt64(TemporalUnits.microsecondsPerHour)
            let rest = magnitude % UInt64(TemporalUnits.microsecondsPerHour)
            var clock: [UInt8] = []
            TemporalText.appendPadded(Int(hours), width: 2, to: &clock)
            clock.append(UInt8(ascii: ":"))
            TemporalText.appendPadded(Int(rest / UInt64(TemporalUnits.microsecondsPerMinute)), width: 2, to: &clock)
            clock.append(UInt8(ascii: ":"))
            TemporalText.appendSeconds(Int64(rest % UInt64(TemporalUnits.microsecondsPerMinute)), to: &clock)
            out += String(decoding: clock, as: UTF8.self)
        }
        return out
    }

    /// Parses interval text: `1 day`, `15 SECONDS`, `2 hours 30 minutes`, `1 year 2 mons`,
    /// `1:30:00`, `1 day 02:00:00`, `-1 week`, `@ 1 minute ago`, `1.5 days`, `P1DT2H`.
    ///
    /// Fractions spill down as Postgres does: a month is 30 days, a day 24 hours, and a
    /// fractional year is rounded to whole months.
    package init(parsingText text: String) throws(SluiceError) {
        var parser = IntervalParser(text: text)
        self = try parser.parse()
    }
}

/// The accumulating state of `interval_in`.
private struct IntervalParser {
    let text: String
    var months: Double = 0
    var days: Double = 0
    var microseconds: Double = 0
    // Exact integer parts, so large whole values do not lose precision in Double.
    var wholeMonths: Int64 = 0
    var wholeDays: Int64 = 0
    var wholeMicroseconds: Int64 = 0

    init(text: String) { self.text = text }

    var syntaxError: SluiceError {
        SluiceError(.invalidDatetimeFormat, "invalid input syntax for type interval: \"\(text)\"")
    }

    var fieldOverflow: SluiceError {
        SluiceError(SQLState("22015"), "interval field value out of range: \"\(text)\"")
    }

    mutating func parse() throws(SluiceError) -> Interval {
        let lowered = text.lowercased().trimmingSpaces
        guard !lowered.isEmpty else { throw syntaxError }
        if lowered.hasPrefix("p") {
            try parseISO(Array(lowered.utf8.dropFirst()))
        } else {
            try parsePostgres(lowered)
        }
        return try finish()
    }

    /// Adds `value` of a unit worth `monthsPer` months, `daysPer` days and `microsPer` µs.
    mutating func add(_ value: Double, unit: String) throws(SluiceError) {
        let whole = value.rounded(.towardZero)
        let fraction = value - whole
        guard whole.magnitude < 9.2e18 else { throw fieldOverflow }
        let integer = Int64(whole)
        let overflowError = fieldOverflow
        func plus(_ target: Int64, _ factor: Int64) throws(SluiceError) -> Int64 {
            let (product, overflow1) = integer.multipliedReportingOverflow(by: factor)
            let (sum, overflow2) = target.addingReportingOverflow(product)
            guard !overflow1, !overflow2 else { throw overflowError }
            return sum
        }
        switch unit {
        case "microsecond", "microseconds", "us", "usec", "usecs", "microsecon":
            wholeMicroseconds = try plus(wholeMicroseconds, 1)
            microseconds += fraction
        case "millisecond", "milliseconds", "ms", "msec", "msecs", "millisecon":
            wholeMicroseconds = try plus(wholeMicroseconds, 1000)
            microseconds += fraction * 1000
        case "second", "seconds", "s", "sec", "secs":
            wholeMicroseconds = try plus(wholeMicroseconds, TemporalUnits.microsecondsPerSecond)
            microseconds += fraction * 1e6
        case "minute", "minutes", "m", "min", "mins":
            wholeMicroseconds = try plus(wholeMicroseconds, TemporalUnits.microsecondsPerMinute)
            microseconds += fraction * 6e7
        case "hour", "hours", "h", "hr", "hrs":
            wholeMicroseconds = try plus(wholeMicroseconds, TemporalUnits.microsecondsPerHour)
            microseconds += fraction * 3.6e9
        case "day", "days", "d":
            wholeDays = try plus(wholeDays, 1)
            microseconds += fraction * 8.64e10
        case "week", "weeks", "w":
            wholeDays = try plus(wholeDays, 7)
            spillDays(fraction * 7)
        case "month", "months", "mon", "mons":
            wholeMonths = try plus(wholeMonths, 1)
            spillDays(fraction * 30)
        case "year", "years", "y", "yr", "yrs":
            wholeMonths = try plus(wholeMonths, 12)
            months += (fraction * 12).rounded(.toNearestOrEven)
        case "decade", "decades", "dec", "decs":
            wholeMonths = try plus(wholeMonths, 120)
            months += (fraction * 120).rounded(.toNearestOrEven)
        case "century", "centuries", "c", "cent":
            wholeMonths = try plus(wholeMonths, 1200)
            months += (fraction * 1200).rounded(.toNearestOrEven)
        case "millennium", "millennia", "mil", "mils":
            wholeMonths = try plus(wholeMonths, 12000)
            months += (fraction * 12000).rounded(.toNearestOrEven)
        default:
            throw syntaxError
        }
    }

    /// `AdjustFractDays`: whole days go to days, the rest to microseconds.
    mutating func spillDays(_ fractionalDays: Double) {
        let whole = fractionalDays.rounded(.towardZero)
        days += whole
        microseconds += (fractionalDays - whole) * 8.64e10
    }

    mutating func parsePostgres(_ lowered: String) throws(SluiceError) {
        var tokens = lowered.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
        if tokens.first == "@" { tokens.removeFirst() } else if let first = tokens.first, first.hasPrefix("@") { tokens[0].removeFirst() }
        var isAgo = false
        if tokens.last == "ago" {
            isAgo = true
            tokens.removeLast()
        }
        guard !tokens.isEmpty else { throw syntaxError }
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            index += 1
            if token.contains(":") {
                try addClock(token)
                continue
            }
            // A number, possibly with its unit attached (`10s`, `1day`).
            let numberEnd = token.firstIndex(where: { !($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }) ?? token.endIndex
            let numberText = String(token[..<numberEnd])
            var unit = String(token[numberEnd...])
            guard let value = Double(numberText), !numberText.isEmpty, value.isFinite else { throw syntaxError }
            if unit.isEmpty {
                if index < tokens.count, tokens[index].first?.isLetter == true {
                    unit = tokens[index]
                    index += 1
                } else if index < tokens.count, tokens[index].contains(":") {
                    unit = "day"  // `1 02:00:00`: a number before a time of day counts days
                } else {
                    unit = "second"  // a bare number counts seconds
                }
            }
            try add(value, unit: unit)
        }
        if isAgo {
            wholeMonths = -wholeMonths; wholeDays = -wholeDays; wholeMicroseconds = -wholeMicroseconds
            months = -months; days = -days; microseconds = -microseconds
        }
    }

    /// `[-]H:MM[:SS[.f]]`, or `MM:SS.f` when the second part has a fraction.
    mutating func addClock(_ token: String) throws(SluiceError) {
        var body = Substring(token)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3 else { throw syntaxError }
        for (partIndex, part) in parts.enumerated() {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { throw syntaxError }
            if partIndex < parts.count - 1, part.contains(".") { throw syntaxError }
        }
        // Whole hours and minutes stay exact integers; only the seconds may carry a fraction.
        let secondsText = parts.count == 3 || parts[1].contains(".") ? parts[parts.count - 1] : "0"
        guard let first = Int64(parts[0]), let seconds = Double(secondsText) else { throw fieldOverflow }
        var hours: Int64 = 0, minutes: Int64 = 0
        if parts.count == 2, parts[1].contains(".") {
            minutes = first
        } else {
            hours = first
            guard let parsedMinutes = Int64(parts[1]), parsedMinutes < 60, seconds < 60 else { throw fieldOverflow }
            minutes = parsedMinutes
        }
        let wholeSeconds = seconds.rounded(.towardZero)
        let (hourMicros, o1) = hours.multipliedReportingOverflow(by: TemporalUnits.microsecondsPerHour)
        let (minuteMicros, o2) = minutes.multipliedReportingOverflow(by: TemporalUnits.microsecondsPerMinute)
        let (partial, o3) = hourMicros.addingReportingOverflow(minuteMicros)
        let (total, o4) = partial.addingReportingOverflow(Int64(wholeSeconds) * TemporalUnits.microsecondsPerSecond)
        guard !o1, !o2, !o3, !o4 else { throw fieldOverflow }
        let (sum, o5) = wholeMicroseconds.addingReportingOverflow(negative ? -total : total)
        guard !o5 else { throw fieldOverflow }
        wholeMicroseconds = sum
        let fraction = (seconds - wholeSeconds) * 1e6
        microseconds += negative ? -fraction : fraction
    }

    /// ISO 8601 designators after the `P`: `1Y2M3W4DT5H6M7.5S`.
    mutating func parseISO(_ bytes: [UInt8]) throws(SluiceError) {
        var index = 0
        var inTime = false
        guard !bytes.isEmpty else { throw syntaxError }
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "t") {
                guard !inTime else { throw syntaxError }
                inTime = true
                index += 1
                continue
            }
            let start = index
            while index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")
                || bytes[index] == UInt8(ascii: ".") || (bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) {
                index += 1
            }
            guard index > start, index < bytes.count, let value = Double(String(decoding: bytes[start ..< index], as: UTF8.self)) else {
                throw syntaxError
            }
            let designator = bytes[index]
            index += 1
            switch (designator, inTime) {
            case (UInt8(ascii: "y"), false): try add(value, unit: "year")
            case (UInt8(ascii: "m"), false): try add(value, unit: "month")
            case (UInt8(ascii: "w"), false): try add(value, unit: "week")
            case (UInt8(ascii: "d"), false): try add(value, unit: "day")
            case (UInt8(ascii: "h"), true): try add(value, unit: "hour")
            case (UInt8(ascii: "m"), true): try add(value, unit: "minute")
            case (UInt8(ascii: "s"), true): try add(value, unit: "second")
            default: throw syntaxError
            }
        }
    }

    /// Combines the exact and fractional parts, cascading fractional days into microseconds.
    func finish() throws(SluiceError) -> Interval {
        let monthsTotal = Double(wholeMonths) + months
        let daysWhole = days.rounded(.towardZero)
        let dayCount = wholeDays + Int64(daysWhole)
        // Keep the integer part exact and round only the fractional rest (rint, half to even).
        let rest = (microseconds + (days - daysWhole) * 8.64e10).rounded(.toNearestOrEven)
        guard rest.magnitude < 9.2e18 else { throw fieldOverflow }
        let (micros, overflow) = wholeMicroseconds.addingReportingOverflow(Int64(rest))
        guard !overflow else { throw fieldOverflow }
        guard let dayValue = Int32(exactly: dayCount) else { throw fieldOverflow }
        guard monthsTotal.magnitude <= Double(Int32.max), let monthValue = Int32(exactly: monthsTotal.rounded(.towardZero)) else {
            throw SluiceError(.datetimeFieldOverflow, "interval out of range")
        }
        return Interval(months: monthValue, days: dayValue, microseconds: micros)
    }
}
