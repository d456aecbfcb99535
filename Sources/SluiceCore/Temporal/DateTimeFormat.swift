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
}
