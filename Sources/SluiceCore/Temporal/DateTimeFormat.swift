/// PostgreSQL's `to_char` templates for dates and times: the patterns `YYYY`, `YYY`, `YY`, `Y`,
/// `MM`, `DD`, `DDD`, `D`, `HH`, `HH12`, `HH24`, `MI`, `SS`, `MS`, `US`, `AM`/`PM` (and `A.M.`),
/// `Month`/`MONTH`/`month`, `Mon`/`MON`/`mon`, `Day`/`DAY`/`day`, `Dy`/`DY`/`dy`, `Q`, `TZ`,
/// the `FM` prefix (no padding), `"quoted text"` and `\` escapes; any other character is
/// copied. Numeric patterns match in either case, as in PostgreSQL (`yyyy-mm-dd`); name
/// patterns take their case from how they are written.
package struct DateTimeFormat: Sendable {
    private enum Item: Sendable {
        case literal(String)
        case field(Field, fillMode: Bool)
    }

    private enum Field: Sendable {
        case year4, year3, year2, year1, month, day, dayOfYear, dayOfWeek, hour12, hour24, minute, second, millisecond, microsecond
        case meridiem(upper: Bool, dotted: Bool)
        case monthName(Case, abbreviated: Bool)
        case dayName(Case, abbreviated: Bool)
        case quarter
        case zone
    }

    private enum Case: Sendable { case upper, lower, capitalized }

    private let items: [Item]

    package init(_ template: String) {
        var items: [Item] = []
        let characters = Array(template)
        var index = 0
        func matches(_ pattern: String, caseSensitive: Bool = false) -> Bool {
            let pattern = Array(pattern)
            guard index + pattern.count <= characters.count else { return false }
            for offset in pattern.indices {
                let a = characters[index + offset]
                let b = pattern[offset]
                if caseSensitive ? a != b : a.lowercased() != b.lowercased() { return false }
            }
            return true
        }
        func nameCase(_ length: Int) -> Case {
            let written = String(characters[index ..< index + length])
            if written == written.uppercased() { return .upper }
            if written == written.lowercased() { return .lower }
            return .capitalized
        }
        while index < characters.count {
            var fillMode = false
            if matches("FM") {
                fillMode = true
                index += 2
                if index >= characters.count { break }
            }
            let character = characters[index]
            if character == "\"" {
                var text = ""
                index += 1
                while index < characters.count && characters[index] != "\"" {
                    if characters[index] == "\\" && index + 1 < characters.count { index += 1 }
                    text.append(characters[index])
                    index += 1
                }
                index += 1
                items.append(.literal(text))
                continue
            }
            if character == "\\" && index + 1 < characters.count {
                items.append(.literal(String(characters[index + 1])))
                index += 2
                continue
            }
            let table: [(String, Int, Field)] = [
                ("YYYY", 4, .year4), ("YYY", 3, .year3), ("YY", 2, .year2), ("Y", 1, .year1),
                ("HH24", 4, .hour24), ("HH12", 4, .hour12), ("HH", 2, .hour12), ("MI", 2, .minute), ("SS", 2, .second),
                ("MS", 2, .millisecond), ("US", 2, .microsecond), ("DDD", 3, .dayOfYear), ("DD", 2, .day), ("MM", 2, .month),
                ("Q", 1, .quarter), ("TZ", 2, .zone),
            ]
            if matches("MONTH") {
                items.append(.field(.monthName(nameCase(5), abbreviated: false), fillMode: fillMode))
                index += 5
            } else if matches("MON") {
                items.append(.field(.monthName(nameCase(3), abbreviated: true), fillMode: fillMode))
                index += 3
            } else if matches("DAY") {
                items.append(.field(.dayName(nameCase(3), abbreviated: false), fillMode: fillMode))
                index += 3
            } else if matches("DY") {
                items.append(.field(.dayName(nameCase(2), abbreviated: true), fillMode: fillMode))
                index += 2
            } else if matches("A.M.") || matches("P.M.") {
                items.append(.field(.meridiem(upper: characters[index].isUppercase, dotted: true), fillMode: fillMode))
                index += 4
            } else if matches("AM") || matches("PM") {
                items.append(.field(.meridiem(upper: characters[index].isUppercase, dotted: false), fillMode: fillMode))
                index += 2
            } else if let (_, length, field) = table.first(where: { matches($0.0) }) {
                items.append(.field(field, fillMode: fillMode))
                index += length
            } else if matches("D") {
                items.append(.field(.dayOfWeek, fillMode: fillMode))
                index += 1
            } else {
                items.append(.literal(String(character)))
                index += 1
            }
        }
        self.items = items
    }

    private static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
    private static let days = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    /// The names as ``parse(_:)`` matches them, lowercased once.
    private static let lowercaseMonths = months.map { Array($0.lowercased().utf8) }
    private static let lowercaseDays = days.map { Array($0.lowercased().utf8) }

    /// `microseconds` (local wall-clock time since 1970) in this template; `zone` is what `TZ` shows.
    package func format(_ microseconds: Int64, zone: String = "") -> String {
        let (days, time) = TemporalUnits.split(microseconds)
        let date = CivilDate(daysSinceUnixEpoch: Int(days))
        let hour = Int(time / TemporalUnits.microsecondsPerHour)
        let minute = Int(time / TemporalUnits.microsecondsPerMinute % 60)
        let second = Int(time / TemporalUnits.microsecondsPerSecond % 60)
        let fraction = Int(time % TemporalUnits.microsecondsPerSecond)
        // 1970-01-01 was a Thursday (4, Sunday being 0).
        let weekday = Int(((days % 7) + 7 + 4) % 7)
        let dayOfYear = Int(days) - CivilDate(year: date.year, month: 1, day: 1).daysSinceUnixEpoch + 1
        var out = ""
        func number(_ value: Int, width: Int, fill: Bool) {
            let text = String(abs(value))
            if value < 0 { out.append("-") }
            if !fill && text.count < width { out.append(String(repeating: "0", count: width - text.count)) }
            out.append(text)
        }
        func name(_ full: String, _ style: Case, abbreviated: Bool, fill: Bool) {
            var text = abbreviated ? String(full.prefix(3)) : full
            switch style {
            case .upper: text = text.uppercased()
            case .lower: text = text.lowercased()
            case .capitalized: break
            }
            // Full names are padded to nine characters, as PostgreSQL does, unless FM.
            if !abbreviated && !fill && text.count < 9 { text += String(repeating: " ", count: 9 - text.count) }
            out.append(text)
        }
        for item in items {
            switch item {
            case .literal(let text):
                out.append(text)
            case .field(let field, let fill):
                switch field {
                case .year4: number(date.year, width: 4, fill: fill)
                case .year3: number(date.year % 1000, width: 3, fill: fill)
                case .year2: number(date.year % 100, width: 2, fill: fill)
                case .year1: number(date.year % 10, width: 1, fill: fill)
                case .month: number(date.month, width: 2, fill: fill)
                case .day: number(date.day, width: 2, fill: fill)
                case .dayOfYear: number(dayOfYear, width: 3, fill: fill)
                case .dayOfWeek: number(weekday + 1, width: 1, fill: fill)
                case .hour12: number(hour % 12 == 0 ? 12 : hour % 12, width: 2, fill: fill)
                case .hour24: number(hour, width: 2, fill: fill)
                case .minute: number(minute, width: 2, fill: fill)
                case .second: number(second, width: 2, fill: fill)
                case .millisecond: number(fraction / 1000, width: 3, fill: fill)
                case .microsecond: number(fraction, width: 6, fill: fill)
                case .quarter: number((date.month - 1) / 3 + 1, width: 1, fill: fill)
                case .meridiem(let upper, let dotted):
                    let text = hour < 12 ? (dotted ? "a.m." : "am") : (dotted ? "p.m." : "pm")
                    out.append(upper ? text.uppercased() : text)
                case .monthName(let style, let abbreviated): name(Self.months[date.month - 1], style, abbreviated: abbreviated, fill: fill)
                case .dayName(let style, let abbreviated): name(Self.days[weekday], style, abbreviated: abbreviated, fill: fill)
                case .zone: out.append(zone)
                }
            }
        }
        return out
    }

    /// UTF-8 text read by this template, as PostgreSQL's `to_timestamp(text, template)` reads it: the
    /// local wall-clock time since 1970 in microseconds. A numeric field takes up to its width in
    /// digits (a year any number, when the next character is not a digit), names match in any
    /// case, a literal or a separator in the template skips one character of the input, and
    /// blanks in the input before a field are skipped. Fields not given are January 1st of year
    /// 1 at midnight, as in PostgreSQL; a day name is read and ignored.
    /// - Throws: 22007 for input that does not match, 22008 for a field out of range.
    package func parse(utf8 input: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> Int64 {
        let text = { String(decoding: input, as: UTF8.self) }
        var position = 0
        var (year, month, day, hour, minute, second, fraction) = (1, 1, 1, 0, 0, 0, 0)
        var dayOfYear: Int?
        var pm: Bool?
        var hour12 = false
        func invalid(_ what: String) -> SluiceError {
            SluiceError(.invalidDatetimeFormat, "invalid value \"\(String(decoding: input[min(position, input.count)...], as: UTF8.self))\" for \"\(what)\"")
        }
        func skipBlanks() { while position < input.count && input[position] == UInt8(ascii: " ") { position += 1 } }
        func number(_ width: Int?, _ what: String, signed: Bool = false) throws(SluiceError) -> Int {
            skipBlanks()
            var negative = false
            if signed && position < input.count && input[position] == UInt8(ascii: "-") {
                negative = true
                position += 1
            }
            var value = 0
            var digits = 0
            while position < input.count, input[position] >= 0x30, input[position] <= 0x39, width.map({ digits < $0 }) ?? (digits < 9) {
                value = value * 10 + Int(input[position] - 0x30)
                digits += 1
                position += 1
            }
            if digits == 0 { throw invalid(what) }
            return negative ? -value : value
        }
        func name(_ names: [[UInt8]], abbreviated: Bool, _ what: String) throws(SluiceError) -> Int {
            skipBlanks()
            for (index, full) in names.enumerated() {
                let candidate = abbreviated ? full.prefix(3) : full[...]
                guard position + candidate.count <= input.count else { continue }
                let slice = input[position ..< position + candidate.count].lazy.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
                if slice.elementsEqual(candidate) {
                    position += candidate.count
                    return index
                }
            }
            throw invalid(what)
        }
        for (index, item) in items.enumerated() {
            // A year runs on past four digits unless a numeric field follows directly (YYYYMMDD).
            let numberFollows: Bool = if index + 1 < items.count, case .field(let next, _) = items[index + 1] {
                switch next {
                case .meridiem, .monthName, .dayName, .zone: false
                default: true
                }
            } else {
                false
            }
            switch item {
            case .literal(let literal):
                // Each character of a literal or separator skips one of the input (a blank only a blank).
                for character in literal.utf8 where position < input.count {
                    if character == UInt8(ascii: " ") { skipBlanks() } else { position += 1 }
                }
            case .field(let field, _):
                switch field {
                case .year4:
                    year = try number(numberFollows ? 4 : nil, "YYYY", signed: true)
                case .year3: year = 2000 + (try number(3, "YYY"))
                case .year2:
                    let value = try number(2, "YY")
                    year = value < 70 ? 2000 + value : 1900 + value
                case .year1: year = 2000 + (try number(1, "Y"))
                case .month: month = try number(2, "MM")
                case .day: day = try number(2, "DD")
                case .dayOfYear: dayOfYear = try number(3, "DDD")
                case .dayOfWeek: _ = try number(1, "D")
                case .hour12:
                    hour = try number(2, "HH12")
                    hour12 = true
                case .hour24: hour = try number(2, "HH24")
                case .minute: minute = try number(2, "MI")
                case .second: second = try number(2, "SS")
                case .millisecond:
                    let start = position
                    let value = try number(3, "MS")
                    let digits = position - start
                    fraction = value * [1, 100_000, 10_000, 1000][min(digits, 3)]
                case .microsecond:
                    let start = position
                    let value = try number(6, "US")
                    var scaled = value
                    for _ in (position - start) ..< 6 { scaled *= 10 }
                    fraction = scaled
                case .quarter: _ = try number(1, "Q")
                case .meridiem(_, let dotted):
                    skipBlanks()
                    let length = dotted ? 4 : 2
                    guard position + length <= input.count else { throw invalid(dotted ? "A.M." : "AM") }
                    let first = input[position] | 0x20
                    guard first == UInt8(ascii: "a") || first == UInt8(ascii: "p") else { throw invalid(dotted ? "A.M." : "AM") }
                    pm = first == UInt8(ascii: "p")
                    position += length
                case .monthName(_, let abbreviated): month = try name(Self.lowercaseMonths, abbreviated: abbreviated, abbreviated ? "MON" : "MONTH") + 1
                case .dayName(_, let abbreviated): _ = try name(Self.lowercaseDays, abbreviated: abbreviated, abbreviated ? "DY" : "DAY")
                case .zone:
                    throw SluiceError(.featureNotSupported, "formatting field \"TZ\" is only supported in to_char")
                }
            }
        }
        if hour12 || pm != nil {
            guard (1 ... 12).contains(hour) || (!hour12 && hour <= 12) else {
                throw SluiceError(.datetimeFieldOverflow, "hour \"\(hour)\" is invalid for the 12-hour clock", hint: "Use the 24-hour clock, or give an hour between 1 and 12.")
            }
            if pm == true && hour < 12 { hour += 12 } else if pm != true && hour == 12 { hour = 0 }
        }
        if year == 0 { throw SluiceError(.invalidDatetimeFormat, "cannot calculate date from year 0") }
        if year < 0 { year += 1 }
        var days: Int
        if let dayOfYear {
            guard (1 ... 366).contains(dayOfYear) else { throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \"\(text())\"") }
            days = CivilDate(year: year, month: 1, day: 1).daysSinceUnixEpoch + dayOfYear - 1
        } else {
            guard CivilDate(year: year, month: month, day: day).isValid else {
                throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \"\(text())\"")
            }
            days = CivilDate(year: year, month: month, day: day).daysSinceUnixEpoch
        }
        guard hour < 24 || (hour == 24 && minute == 0 && second == 0 && fraction == 0), minute < 60, second < 60 else {
            throw SluiceError(.datetimeFieldOverflow, "date/time field value out of range: \"\(text())\"")
        }
        if hour == 24 {
            days += 1
            hour = 0
        }
        let time = Int64(hour) * TemporalUnits.microsecondsPerHour + Int64(minute) * TemporalUnits.microsecondsPerMinute
            + Int64(second) * TemporalUnits.microsecondsPerSecond + Int64(fraction)
        // (A year of nine digits is far past what a timestamp holds.)
        let (dayMicros, overflowDays) = Int64(days).multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
        let (micros, overflowSum) = dayMicros.addingReportingOverflow(time)
        // (Two days of room at either end: the zone's offset is added next.)
        let room = 2 * TemporalUnits.microsecondsPerDay
        guard !overflowDays, !overflowSum, micros < Int64.max - room, micros > Int64.min + room else {
            throw SluiceError(.datetimeFieldOverflow, "timestamp out of range: \"\(text())\"")
        }
        return micros
    }
}
