import SluiceCore

/// Date and time functions: the statement clock, conversions and constructors.
enum TemporalFunctions {
    static func overloads(named name: String) -> [Overload]? {
        switch name {
        case "now", "current_timestamp", "transaction_timestamp", "statement_timestamp":
            return [Overload([], statementTimestamp(name))]
        case "proctime":
            // Flink's and RisingWave's processing time: a source's generated column evaluates it
            // as each chunk of rows arrives (its context's clock), so it is the rows' arrival.
            return [Overload([], statementTimestamp(name))]
        case "current_date": return [Overload([], currentDate())]
        case "to_timestamp": return [Overload([.float64], toTimestamp()), Overload([.varchar, .varchar], parseTimestamp())]
        case "make_date": return [Overload([.int32, .int32, .int32], makeDate())]
        case "make_timestamp": return [Overload([.int32, .int32, .int32, .int32, .int32, .float64], makeTimestamp(withZone: false, zoneArgument: false))]
        case "make_timestamptz":
            return [
                Overload([.int32, .int32, .int32, .int32, .int32, .float64], makeTimestamp(withZone: true, zoneArgument: false)),
                Overload([.int32, .int32, .int32, .int32, .int32, .float64, .varchar], makeTimestamp(withZone: true, zoneArgument: true)),
            ]
        case "to_char": return [DataType.timestamp, .timestamptz].map { type in Overload([type, .varchar], toChar(type)) }
        case "date_trunc":
            return [DataType.timestamp, .timestamptz, .interval].map { type in Overload([.varchar, type], dateTrunc(type)) }
        case "extract", "date_part":
            return [DataType.date, .time, .timestamp, .timestamptz, .interval].map { type in Overload([.varchar, type], extract(name, type)) }
        default: return nil
        }
    }

    /// `now()` and its synonyms: the statement's start time (fixed within a statement, so not
    /// deterministic across statements).
    static func statementTimestamp(_ name: String) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [], resultType: .timestamptz, isDeterministic: false) { (_: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: .timestamptz, storage: .int64([Int64](repeating: context.statementTimestamp, count: rowCount)))
        }
    }

    /// `current_date`: the statement's start date (in UTC; session zones are not applied yet).
    static func currentDate() -> ScalarFunction {
        ScalarFunction(name: "current_date", argumentTypes: [], resultType: .date, isDeterministic: false) { (_: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let days = Int32(TemporalUnits.split(context.statementTimestamp).days)
            return Column(type: .date, storage: .int32([Int32](repeating: days, count: rowCount)))
        }
    }

    /// `to_timestamp(double precision)`: Unix seconds to timestamptz, rounded to microseconds.
    static func toTimestamp() -> ScalarFunction {
        ScalarFunction(name: "to_timestamp", argumentTypes: [.float64], resultType: .timestamptz) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unary(arguments[0], resultType: .timestamptz) { (seconds: Double) throws(SluiceError) -> Int64 in
                try TimestampArithmetic.toTimestamp(seconds)
            }
        }
    }

    /// `to_char(timestamp | timestamptz, template)`: PostgreSQL's date-time templates
    /// (``DateTimeFormat``); a timestamptz is shown on the session zone's clocks. A template
    /// repeated down the column is compiled once.
    static func toChar(_ type: DataType) -> ScalarFunction {
        ScalarFunction(name: "to_char", argumentTypes: [type, .varchar], resultType: .varchar) { (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let values = Int64.elements(of: arguments[0].storage)
            let templates = StringArgument(arguments[1])
            let validity = Kernels.combinedValidity(arguments)
            var compiled: (text: String, format: DateTimeFormat)?
            return try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                if let validity, !validity[rowIndex] { return false }
                let template = templates.string(rowIndex)
                if compiled?.text != template { compiled = (template, DateTimeFormat(template)) }
                var value = values[rowIndex]
                if value == Int64.max || value == Int64.min { return false }
                var zone = ""
                if type == .timestamptz {
                    value = context.zone.localMicros(fromUTC: value)
                    zone = context.timeZone.uppercased() == "UTC" ? "UTC" : context.timeZone
                }
                out += Array(compiled!.format.format(value, zone: zone).utf8)
                return true
            }
        }
    }

    /// `to_timestamp(text, template)`: `text` read by a `to_char` template
    /// (``DateTimeFormat/parse(_:)``), a wall-clock time in the session's zone.
    static func parseTimestamp() -> ScalarFunction {
        ScalarFunction(name: "to_timestamp", argumentTypes: [.varchar, .varchar], resultType: .timestamptz) { (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let texts = StringArgument(arguments[0])
            let templates = StringArgument(arguments[1])
            let validity = Kernels.combinedValidity(arguments)
            var compiled: (text: String, format: DateTimeFormat)?
            var values = [Int64](repeating: 0, count: rowCount)
            for row in 0 ..< rowCount {
                if let validity, !validity[row] { continue }
                let template = templates.string(row)
                if compiled?.text != template { compiled = (template, DateTimeFormat(template)) }
                let format = compiled!.format
                let local = try texts.withBytes(row) { (bytes: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> Int64 in try format.parse(utf8: bytes) }
                values[row] = context.zone.utcMicros(fromLocal: local)
            }
            return Column(type: .timestamptz, storage: .int64(values), validity: validity)
        }
    }

    /// `make_date(year, month, day)`; negative years are BC (there is no year 0).
    static func makeDate() -> ScalarFunction {
        ScalarFunction(name: "make_date", argumentTypes: [.int32, .int32, .int32], resultType: .date) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let years = arguments[0].integerElements()
            let months = arguments[1].integerElements()
            let days = arguments[2].integerElements()
            return try Kernels.values(arguments, rowCount: rowCount, type: .date) { (rowIndex: Int) throws(SluiceError) -> Int32 in
                try TimestampArithmetic.makeDate(year: Int(years[rowIndex]), month: Int(months[rowIndex]), day: Int(days[rowIndex]))
            }
        }
    }

    /// `make_timestamp(year, month, day, hour, min, sec)` and `make_timestamptz(…[, zone])`, as
    /// PostgreSQL checks them: the fields read on the clocks of `zone`, else the session's.
    static func makeTimestamp(withZone: Bool, zoneArgument: Bool) -> ScalarFunction {
        let name = withZone ? "make_timestamptz" : "make_timestamp"
        let types: [DataType] = [.int32, .int32, .int32, .int32, .int32, .float64] + (zoneArgument ? [.varchar] : [])
        return ScalarFunction(name: name, argumentTypes: types, resultType: withZone ? .timestamptz : .timestamp, isDeterministic: !withZone || zoneArgument) {
            (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let fields = arguments.prefix(5).map { $0.integerElements() }
            let seconds = Double.elements(of: arguments[5].storage)
            let zones = zoneArgument ? StringArgument(arguments[6]) : nil
            return try Kernels.values(arguments, rowCount: rowCount, type: withZone ? .timestamptz : .timestamp) { (rowIndex: Int) throws(SluiceError) -> Int64 in
                let (hour, minute, second) = (Int(fields[3][rowIndex]), Int(fields[4][rowIndex]), seconds[rowIndex])
                let days = try TimestampArithmetic.makeDate(year: Int(fields[0][rowIndex]), month: Int(fields[1][rowIndex]), day: Int(fields[2][rowIndex]))
                guard hour >= 0, minute >= 0, minute < 60, second >= 0, second <= 60, second.isFinite,
                      hour < 24 || (hour == 24 && minute == 0 && second == 0) else {
                    let shown = second == second.rounded() ? String(Int(second)) : String(second)
                    throw SluiceError(.datetimeFieldOverflow, "time field value out of range: \(hour):\(pad(minute)):\(second < 10 ? "0" : "")\(shown)")
                }
                let micros = Int64(days) * TemporalUnits.microsecondsPerDay + Int64(hour) * 3_600_000_000 + Int64(minute) * 60_000_000
                    + Int64((second * 1_000_000).rounded())
                guard withZone else { return micros }
                var zone = context.zone
                if let zones {
                    let text = zones.string(rowIndex)
                    if text.uppercased() == "UTC" || text.uppercased() == "GMT" {
                        zone = .utc
                    } else {
                        guard let timeZones = context.timeZones else { throw SluiceError(.invalidParameterValue, "time zone \"\(text)\" not recognized") }
                        zone = try timeZones.rules(named: text)
                    }
                }
                return zone.utcMicros(fromLocal: micros)
            }
        }
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }

    /// `date_trunc(unit, timestamp | timestamptz | interval)`.
    static func dateTrunc(_ type: DataType) -> ScalarFunction {
        ScalarFunction(name: "date_trunc", argumentTypes: [.varchar, type], resultType: type) { (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let units = StringArgument(arguments[0])
            if type == .interval {
                let values = Interval.elements(of: arguments[1].storage)
                return try Kernels.values(arguments, rowCount: rowCount, type: type) { (rowIndex: Int) throws(SluiceError) -> Interval in
                    try DateTrunc.truncate(values[rowIndex], to: units.string(rowIndex).lowercased())
                }
            }
            let typeName = type.sqlName
            let values = Int64.elements(of: arguments[1].storage)
            if type == .timestamptz {
                // Truncated on the session zone's clocks, as PostgreSQL does.
                let zone = context.zone
                return try Kernels.values(arguments, rowCount: rowCount, type: type) { (rowIndex: Int) throws(SluiceError) -> Int64 in
                    let value = values[rowIndex]
                    if value == Int64.max || value == Int64.min { return value }
                    let local = try DateTrunc.truncate(zone.localMicros(fromUTC: value), to: units.string(rowIndex).lowercased(), typeName: typeName)
                    return zone.utcMicros(fromLocal: local)
                }
            }
            return try Kernels.values(arguments, rowCount: rowCount, type: type) { (rowIndex: Int) throws(SluiceError) -> Int64 in
                try DateTrunc.truncate(values[rowIndex], to: units.string(rowIndex).lowercased(), typeName: typeName)
            }
        }
    }

    /// `extract(field FROM x)` (as `extract('field', x)`, numeric) and `date_part('field', x)`
    /// (double precision) for dates, times, timestamps and intervals.
    static func extract(_ name: String, _ type: DataType) -> ScalarFunction {
        let asDouble = name == "date_part"
        let resultType: DataType = asDouble ? .float64 : .numeric
        return ScalarFunction(name: name, argumentTypes: [.varchar, type], resultType: resultType) { (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let fields = StringArgument(arguments[0])
            let source = arguments[1]
            let validity = Kernels.combinedValidity(arguments)
            var output = [Decimal]()
            output.reserveCapacity(rowCount)
            for rowIndex in 0 ..< rowCount {
                if let validity, !validity[rowIndex] {
                    output.append(.zero)
                    continue
                }
                let field = fields.string(rowIndex).lowercased()
                switch source.storage {
                case .int32(let days): output.append(try Extract.field(field, fromDate: days[rowIndex]))
                case .int64(let micros) where type == .time: output.append(try Extract.field(field, fromTime: micros[rowIndex]))
                case .int64(let micros): output.append(try Extract.field(field, fromTimestamp: micros[rowIndex], withZone: type == .timestamptz, zone: context.zone))
                case .interval(let intervals): output.append(try Extract.field(field, fromInterval: intervals[rowIndex]))
                default: throw SluiceError.internalError("extract from \(type.sqlName)")
                }
            }
            let column = Column(type: .numeric, storage: .decimal(output), validity: validity)
            guard asDouble else { return column }
            return try Kernels.unary(column, resultType: .float64) { (value: Decimal) in value.doubleValue }
        }
    }
}
