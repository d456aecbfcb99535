import SluiceCore

/// `x AT TIME ZONE zone` (PostgreSQL's `timezone(zone, x)`): a `timestamp` read on `zone`'s
/// clocks becomes the instant (`timestamptz`); a `timestamptz` becomes the reading of `zone`'s
/// clocks at that instant (`timestamp`). The zone is a tzdata name or a POSIX zone string
/// (where `'-8'` and `'UTC+3'` count hours west, as in PostgreSQL), or an interval east of UTC.
package enum TimeZoneFunctions {
    package static func atTimeZone(_ type: DataType, zoneType: DataType) -> ScalarFunction {
        let resultType: DataType = type == .timestamp ? .timestamptz : .timestamp
        return ScalarFunction(name: "timezone", argumentTypes: [zoneType, type], resultType: resultType) {
            (arguments: [Column], rowCount: Int, context: EvaluationContext) throws(SluiceError) -> Column in
            let values = Int64.elements(of: arguments[1].storage)
            // The zone of the last row, for a column of one zone.
            var last: (key: Value, rules: TimeZoneRules)?
            return try Kernels.values(arguments, rowCount: rowCount, type: resultType) { (rowIndex: Int) throws(SluiceError) -> Int64 in
                let key = arguments[0].value(at: rowIndex)
                let rules: TimeZoneRules
                if let last, last.key == key {
                    rules = last.rules
                } else {
                    rules = try zone(key, context: context)
                    last = (key, rules)
                }
                let value = values[rowIndex]
                if value == Int64.max || value == Int64.min { return value }
                return type == .timestamp ? rules.utcMicros(fromLocal: value) : rules.localMicros(fromUTC: value)
            }
        }.withOrigin(.atTimeZone(type, zoneType: zoneType))
    }

    private static func zone(_ value: Value, context: EvaluationContext) throws(SluiceError) -> TimeZoneRules {
        switch value {
        case .interval(let interval):
            guard interval.months == 0, interval.days == 0,
                let rules = TimeZoneRules.fixedOffset(secondsEast: interval.microseconds / 1_000_000)
            else {
                throw SluiceError(.invalidParameterValue, "interval time zone \"\(interval.textForm)\" must not include months or days")
            }
            return rules
        case .string(let name):
            if name.uppercased() == "UTC" || name.uppercased() == "GMT" { return .utc }
            guard let timeZones = context.timeZones else {
                throw SluiceError(.invalidParameterValue, "time zone \"\(name)\" not recognized")
            }
            return try timeZones.rules(named: name)
        default:
            throw SluiceError(.invalidParameterValue, "time zone \"\(value.textForm)\" not recognized")
        }
    }
}
