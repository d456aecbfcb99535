/// Postgres text input of dates, times and timestamps (`date_in`, `time_in`, `timestamp_in`,
/// `timestamptz_in`) for the ISO forms; zones are UTC offsets, and `timestamp` ignores them.
extension TemporalText {
    /// Parses a `date`; `infinity`/`-infinity` become `Int32.max`/`Int32.min`.
    package static func parseDate(_ text: String) throws(SluiceError) -> Int32 {
        let fields = try decode(text, typeName: "date")
        switch fields.special {
        case .infinity: return Int32.max
        case .negativeInfinity: return Int32.min
        case .epoch: return 0
        case .allBalls: throw syntaxError(text, typeName: "date")
        case nil: break
        }
        guard let date = fields.date else { throw syntaxError(text, typeName: "date") }
        let days = date.daysSinceUnixEpoch
        guard days >= TemporalUnits.minimumDate, days < TemporalUnits.dateEnd else {
            throw SluiceError(.datetimeFieldOverflow, "date out of range: \"\(text)\"")
        }
        return Int32(days)
    }

    /// Parses a `time` (microseconds since midnight); a date or zone in the text is ignored.
    package static func parseTime(_ text: String) throws(SluiceError) -> Int64 {
        let fields = try decode(text, typeName: "time")
        if fields.special == .allBalls { return 0 }
        guard fields.special == nil, let time = fields.time else { throw syntaxError(text, typeName: "time") }
        return time
    }

    /// Parses a `timestamp` or `timestamptz` (microseconds since 1970). For `timestamptz`
    /// a zone offset converts the value to UTC; without one, it is a reading of `zone`'s
    /// clocks (the session's time zone).
    package static func parseTimestamp(_ text: String, withZone: Bool, zone: TimeZoneRules = .utc) throws(SluiceError) -> Int64 {
        let typeName = withZone ? "timestamp with time zone" : "timestamp"
        let fields = try decode(text, typeName: typeName)
        switch fields.special {
        case .infinity: return Int64.max
        case .negativeInfinity: return Int64.min
        case .epoch: return 0
        case .allBalls: throw syntaxError(text, typeName: typeName)
        case nil: break
        }
        guard let date = fields.date else { throw syntaxError(text, typeName: typeName) }
        let (dayMicroseconds, overflow1) = Int64(date.daysSinceUnixEpoch).multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
        var (microseconds, overflow2) = dayMicroseconds.addingReportingOverflow(fields.time ?? 0)
        var overflow3 = false
        if withZone, let offset = fields.zoneOffset {
            (microseconds, overflow3) = microseconds.subtractingReportingOverflow(Int64(offset) * TemporalUnits.microsecondsPerSecond)
        } else if withZone, !overflow1, !overflow2 {
            microseconds = zone.utcMicros(fromLocal: microseconds)
        }
        guard !overflow1, !overflow2, !overflow3,
              microseconds >= TemporalUnits.minimumTimestamp, microseconds < TemporalUnits.timestampEnd else {
            throw SluiceError(.datetimeFieldOverflow, "timestamp out of range: \"\(text)\"")
        }
        return microseconds
    }

    private static func decode(_ text: String, typeName: String) throws(SluiceError) -> DateTimeFields {
        do {
            return try DateTimeFields.parse(text)
        } catch {
            switch error {
            case .syntax:
                throw syntaxError(text, typeName: typeName)
            case .fieldOutOfRange:
                throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \"\(text)\"")
            case .zoneOutOfRange:
                throw SluiceError(SQLState("22009"), "time zone displacement out of range: \"\(text)\"")
            }
        }
    }

    private static func syntaxError(_ text: String, typeName: String) -> SluiceError {
        SluiceError(.invalidDatetimeFormat, "invalid input syntax for type \(typeName): \"\(text)\"")
    }
}
