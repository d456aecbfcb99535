#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

// IANA time zones read from the system's tzdata (TZif files, RFC 8536), with PostgreSQL's rules
// for looking zones up by name and for turning local wall-clock readings into UTC.

/// One local time type of a zone: an offset from UTC, whether it is daylight saving time, and
/// its abbreviation (RFC 8536 §3.2, "local time type records").
package struct LocalTimeType: Hashable, Sendable {
    /// Seconds east of UTC (ISO 8601 sign: New York in winter is -18000).
    package var utcOffset: Int32
    package var isDST: Bool
    /// Such as `EST`, `+0545`, or empty for a POSIX zone such as `+05:30` that names none.
    package var abbreviation: String

    package init(utcOffset: Int32, isDST: Bool, abbreviation: String) {
        self.utcOffset = utcOffset
        self.isDST = isDST
        self.abbreviation = abbreviation
    }
}

/// The rules of one time zone: the UTC offset in effect at every instant.
///
/// Built from a TZif file (the transitions table, then the POSIX TZ footer for instants after its
/// last transition), from a POSIX TZ string alone, or from a fixed offset. Instants are `Int64`
/// microseconds since 1970-01-01 00:00:00 UTC (`timestamptz`); local readings are microseconds of
/// a wall clock since 1970-01-01 (`timestamp`). Offsets are resolved to whole seconds, as
/// PostgreSQL does: the fraction of a second never moves a reading across a transition.
package struct TimeZoneRules: Sendable {
    /// The zone's canonical name, as `SHOW TimeZone` prints it: the file's spelling in the tzdata
    /// directory (`America/New_York` for `america/new_york`), a POSIX string upper-cased
    /// (`UTC+3`), or PostgreSQL's spelling of a numeric offset (`<-08>+08`).
    package let name: String
    /// Whether the source file carries leap-second records, which Sluice (like PostgreSQL)
    /// does not apply.
    package let usesLeapSeconds: Bool
    /// UTC seconds, strictly ascending.
    private let transitionTimes: [Int64]
    /// For each transition, the index in `types` in effect from it on.
    private let transitionTypes: [UInt8]
    /// Never empty; `types[0]` holds before the first transition (RFC 8536 §3.2).
    private let types: [LocalTimeType]
    /// The POSIX TZ rule for instants after the last transition, when it has daylight saving time.
    /// A footer without one adds nothing: the last transition's type goes on, as in PostgreSQL.
    private let footer: PosixTimeZone.DaylightRule?

    private init(name: String, usesLeapSeconds: Bool, transitionTimes: [Int64], transitionTypes: [UInt8],
                 types: [LocalTimeType], footer: PosixTimeZone.DaylightRule?) {
        self.name = name
        self.usesLeapSeconds = usesLeapSeconds
        self.transitionTimes = transitionTimes
        self.transitionTypes = transitionTypes
        self.types = types
        self.footer = footer
    }

    /// Coordinated Universal Time, abbreviated `UTC`.
    package static let utc = TimeZoneRules(fixed: LocalTimeType(utcOffset: 0, isDST: false, abbreviation: "UTC"), name: "UTC")

    private init(fixed type: LocalTimeType, name: String) {
        self.init(name: name, usesLeapSeconds: false, transitionTimes: [], transitionTypes: [], types: [type], footer: nil)
    }

    /// A zone at a fixed offset east of UTC, named and abbreviated as PostgreSQL's
    /// `pg_tzset_offset` does: `+05:30` is `<+05:30>-05:30`, `-8` hours is `<-08>+08`.
    /// Returns nil when the offset is not below 168 hours either way.
    package static func fixedOffset(secondsEast seconds: Int64) -> TimeZoneRules? {
        guard seconds.magnitude < 168 * 3600 else { return nil }
        let magnitude = seconds.magnitude
        func twoDigits(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = twoDigits(magnitude / 3600)
        if magnitude % 3600 != 0 {
            text += ":" + twoDigits(magnitude % 3600 / 60)
            if magnitude % 60 != 0 { text += ":" + twoDigits(magnitude % 60) }
        }
        // `pg_tzset_offset` writes the name in POSIX form, whose sign is the opposite of ISO's.
        let (isoSign, posixSign) = seconds < 0 ? ("-", "+") : ("+", "-")
        let type = LocalTimeType(utcOffset: Int32(seconds), isDST: false, abbreviation: isoSign + text)
        return TimeZoneRules(fixed: type, name: "<\(isoSign)\(text)>\(posixSign)\(text)")
    }

    /// A zone described by a POSIX TZ string alone, such as `EST5EDT,M3.2.0,M11.1.0` or
    /// `<+0330>-3:30`, as PostgreSQL's `tzparse` reads it: the offset's sign is POSIX's (positive
    /// is west of Greenwich), the standard abbreviation may be empty but the daylight one may not,
    /// and a daylight zone without rules follows the US rules `M3.2.0,M11.1.0`. Returns nil when
    /// the text is not a POSIX TZ string. PostgreSQL upper-cases a zone name before this parse;
    /// callers that want the same do it first.
    package init?(posixTZ text: String) {
        guard let zone = PosixTimeZone(parsing: text) else { return nil }
        switch zone {
        case .fixed(let type):
            self.init(fixed: type, name: text)
        case .daylight(let rule):
            self.init(name: text, usesLeapSeconds: false, transitionTimes: [], transitionTypes: [],
                      types: [rule.standard], footer: rule)
        }
    }

    /// Reads TZif data of version 1, 2, 3 or 4 (RFC 8536): the 64-bit block and the POSIX TZ
    /// footer of version 2 and later when present, else the version 1 block. An unparsable footer
    /// is ignored, as PostgreSQL's `tzload` does.
    package init(tzif bytes: [UInt8], name: String) throws(SluiceError) {
        var reader = TZifReader(bytes: bytes)
        let firstHeader = try reader.header()
        let block: TZifReader.Block
        var footer: PosixTimeZone?
        if firstHeader.version >= 2 {
            reader.offset += firstHeader.counts.dataLength(timeSize: 4)
            let secondHeader = try reader.header()
            block = try reader.block(secondHeader.counts, timeSize: 8)
            footer = try reader.footer().flatMap { PosixTimeZone(parsing: $0) }
        } else {
            block = try reader.block(firstHeader.counts, timeSize: 4)
        }
        var daylight: PosixTimeZone.DaylightRule?
        if case .daylight(let rule) = footer { daylight = rule }
        self.init(name: name, usesLeapSeconds: block.leapSecondCount > 0, transitionTimes: block.times,
                  transitionTypes: block.typeIndices, types: block.types, footer: daylight)
    }
}

// MARK: - Conversions

extension TimeZoneRules {
    /// The local time type in effect at a UTC instant (`timestamptz`), as PostgreSQL's
    /// `pg_localtime` finds it: the type of the last transition at or before the instant, the
    /// first type before any transition, and the POSIX footer after the table.
    /// - Complexity: O(log n) in the number of transitions.
    package func offset(atUTC micros: Int64) -> LocalTimeType {
        type(atUTCSeconds: floorDivide(micros, 1_000_000))
    }

    /// The wall-clock reading (`timestamp`) of a UTC instant (`timestamptz`) in this zone.
    /// Infinities (`Int64.min`, `Int64.max`) stay as they are.
    package func localMicros(fromUTC micros: Int64) -> Int64 {
        guard micros != .min, micros != .max else { return micros }
        return Self.shift(micros, bySeconds: Int64(offset(atUTC: micros).utcOffset))
    }

    /// The UTC instant (`timestamptz`) of a wall-clock reading (`timestamp`) in this zone,
    /// resolved exactly as PostgreSQL's `DetermineTimeZoneOffset` (src/backend/utils/adt/datetime.c):
    ///
    /// 1. Take the reading's whole seconds as if they were UTC, step back 24 hours, and find the
    ///    first transition strictly after that point, with the offsets just before and just
    ///    after it. With none, the offset in effect at that point applies.
    /// 2. Interpret the reading with each offset. If both interpretations fall before the
    ///    transition, the earlier offset applies; if both fall at or after it, the later one.
    /// 3. Otherwise the reading is in a gap or an overlap. In a gap (spring forward: the reading
    ///    does not exist) the offset in effect *before* the transition applies, so 02:30 on
    ///    2024-03-10 in New York is 07:30 UTC, which reads 03:30 EDT. In an overlap (fall back:
    ///    the reading happens twice) the offset *after* the transition applies, giving the later
    ///    instant: 01:30 on 2024-11-03 in New York is 06:30 UTC (01:30 EST). In both cases this is
    ///    the interpretation with the larger UTC value.
    ///
    /// Only one transition is looked at, as in PostgreSQL; the fraction of a second is carried
    /// over unchanged. Infinities stay as they are.
    /// - Complexity: O(log n) in the number of transitions.
    package func utcMicros(fromLocal micros: Int64) -> Int64 {
        guard micros != .min, micros != .max else { return micros }
        let localSeconds = floorDivide(micros, 1_000_000)
        let probe = localSeconds - 86_400
        let offset: Int32
        if let transition = transition(afterUTCSeconds: probe) {
            let beforeTime = localSeconds - Int64(transition.before.utcOffset)
            let afterTime = localSeconds - Int64(transition.after.utcOffset)
            if beforeTime < transition.time && afterTime < transition.time {
                offset = transition.before.utcOffset
            } else if beforeTime > transition.time && afterTime >= transition.time {
                offset = transition.after.utcOffset
            } else if beforeTime > afterTime {
                offset = transition.before.utcOffset
            } else {
                offset = transition.after.utcOffset
            }
        } else {
            offset = type(atUTCSeconds: probe).utcOffset
        }
        return Self.shift(micros, bySeconds: -Int64(offset))
    }

    /// `micros` plus `seconds`, kept off the infinities at the ends of the range; readings that
    /// near the ends are outside the timestamp range, which callers check.
    private static func shift(_ micros: Int64, bySeconds seconds: Int64) -> Int64 {
        let (sum, overflow) = micros.addingReportingOverflow(seconds * 1_000_000)
        if overflow { return seconds < 0 ? .min + 1 : .max - 1 }
        return min(max(sum, .min + 1), .max - 1)
    }

    /// The type of the last transition at or before `time`, as `localsub` in PostgreSQL's
    /// src/timezone/localtime.c picks it.
    private func type(atUTCSeconds time: Int64) -> LocalTimeType {
        guard let last = transitionTimes.last else {
            if let footer { return footer.type(atUTCSeconds: time, after: nil) ?? types[0] }
            return types[0]
        }
        if time < last {
            let index = firstTransition(after: time)
            return index == 0 ? types[0] : types[Int(transitionTypes[index - 1])]
        }
        let lastType = types[Int(transitionTypes[transitionTypes.count - 1])]
        guard let footer else { return lastType }
        return footer.type(atUTCSeconds: time, after: last) ?? lastType
    }

    /// The first transition strictly after `time` with the types on either side of it, as
    /// `pg_next_dst_boundary` returns it; nil when the zone has no later transition.
    private func transition(afterUTCSeconds time: Int64) -> (before: LocalTimeType, time: Int64, after: LocalTimeType)? {
        if let last = transitionTimes.last, time < last {
            let index = firstTransition(after: time)
            let before = index == 0 ? types[0] : types[Int(transitionTypes[index - 1])]
            return (before, transitionTimes[index], types[Int(transitionTypes[index])])
        }
        guard let footer, let next = footer.transition(afterUTCSeconds: time) else { return nil }
        return (type(atUTCSeconds: time), next.time, next.type)
    }

    /// The index of the first transition later than `time` (`transitionTimes.count` if none).
    private func firstTransition(after time: Int64) -> Int {
        var low = 0
        var high = transitionTimes.count
        while low < high {
            let middle = (low + high) / 2
            if transitionTimes[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// Floor division, for instants before 1970.
private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return (value % divisor < 0) ? quotient - 1 : quotient
}

// MARK: - POSIX TZ strings

/// A POSIX TZ string (POSIX.1-2017 §8.3 `TZ`, with RFC 8536 §3.3.1's extensions: hours up to 167
/// and negative rule times), as PostgreSQL's `tzparse` reads it.
enum PosixTimeZone: Sendable {
    case fixed(LocalTimeType)
    case daylight(DaylightRule)

    /// A day of the year on which daylight saving time starts or ends.
    enum RuleDate: Sendable {
        /// `Jn`, 1…365: February 29 is never counted, so `J60` is always March 1.
        case julianDay(Int)
        /// `n`, 0…365: February 29 counts in leap years.
        case zeroBasedDay(Int)
        /// `Mm.w.d`: weekday `d` (0 is Sunday) of week `w` (1…5, 5 is the last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)

        /// Days from January 1 of `year` to this date.
        func dayOfYear(in year: Int) -> Int {
            switch self {
            case .julianDay(let day):
                return day - 1 + (CivilDate.isLeapYear(year) && day >= 60 ? 1 : 0)
            case .zeroBasedDay(let day):
                return day
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate(year: year, month: month, day: 1)
                let length = CivilDate.daysInMonth(year: year, month: month)
                var day = (weekday - first.dayOfWeek + 7) % 7
                for _ in 1 ..< week where day + 7 < length { day += 7 }
                return first.dayOfYear - 1 + day
            }
        }
    }

    /// Standard time with a yearly period of daylight saving time.
    struct DaylightRule: Sendable {
        var standard: LocalTimeType
        var daylight: LocalTimeType
        var start: RuleDate
        /// Seconds after local midnight, in standard time, when daylight saving time starts.
        var startTime: Int64
        var end: RuleDate
        /// Seconds after local midnight, in daylight saving time, when it ends.
        var endTime: Int64

        /// The year's two transitions in time order, or nil when the rule makes none that year.
        ///
        /// The test is tzcode's `tzparse`: a year whose daylight period is as long as the year
        /// plus the daylight saving makes none, so `EST5EDT4,0/0,J365/25` is daylight saving
        /// time all year. Transitions of adjacent years may coincide; the later year's wins.
        func transitions(inYear year: Int) -> (first: Int64, firstStartsDaylight: Bool, second: Int64)? {
            let startOfYear = Int64(CivilDate(year: year, month: 1, day: 1).daysSinceUnixEpoch) * 86_400
            let start = Int64(start.dayOfYear(in: year)) * 86_400 + startTime - Int64(standard.utcOffset)
            let end = Int64(end.dayOfYear(in: year)) * 86_400 + endTime - Int64(daylight.utcOffset)
            let yearLength: Int64 = (CivilDate.isLeapYear(year) ? 366 : 365) * 86_400
            let saving = Int64(daylight.utcOffset) - Int64(standard.utcOffset)
            if end < start { return (startOfYear + end, false, startOfYear + start) }
            if start < end && end - start < yearLength + saving { return (startOfYear + start, true, startOfYear + end) }
            return nil
        }

        /// The type set by the last transition at or before `time` and after `floor`; nil when
        /// there is none in the few years searched.
        func type(atUTCSeconds time: Int64, after floor: Int64?) -> LocalTimeType? {
            let year = CivilDate(daysSinceUnixEpoch: Int(floorDivide(time, 86_400))).year
            for candidate in stride(from: year + 1, through: year - 2, by: -1) {
                guard let pair = transitions(inYear: candidate) else { continue }
                let (at, startsDaylight): (Int64, Bool)
                if pair.second <= time {
                    (at, startsDaylight) = (pair.second, !pair.firstStartsDaylight)
                } else if pair.first <= time {
                    (at, startsDaylight) = (pair.first, pair.firstStartsDaylight)
                } else {
                    continue
                }
                if let floor, at <= floor { return nil }
                return startsDaylight ? daylight : standard
            }
            return nil
        }

        /// The first transition strictly after `time`, with the type it sets.
        func transition(afterUTCSeconds time: Int64) -> (time: Int64, type: LocalTimeType)? {
            let year = CivilDate(daysSinceUnixEpoch: Int(floorDivide(time, 86_400))).year
            for candidate in (year - 1) ... (year + 2) {
                guard let pair = transitions(inYear: candidate) else { continue }
                if pair.first > time { return (pair.first, pair.firstStartsDaylight ? daylight : standard) }
                if pair.second > time { return (pair.second, pair.firstStartsDaylight ? standard : daylight) }
            }
            return nil
        }
    }

    /// PostgreSQL's `TZDEFRULESTRING`, for a daylight zone written without rules.
    private static let defaultRules = ",M3.2.0,M11.1.0"

    init?(parsing text: String) {
        var scanner = PosixScanner(bytes: Array(text.utf8))
        guard let standardName = scanner.name(), !scanner.isAtEnd, let standardOffset = scanner.offset() else { return nil }
        let standard = LocalTimeType(utcOffset: Int32(-standardOffset), isDST: false, abbreviation: standardName)
        if scanner.isAtEnd {
            self = .fixed(standard)
            return
        }
        guard let daylightName = scanner.name(), !daylightName.isEmpty else { return nil }
        var daylightOffset = standardOffset - 3600
        if !scanner.isAtEnd && scanner.peek != UInt8(ascii: ",") {
            guard let offset = scanner.offset() else { return nil }
            daylightOffset = offset
        }
        if scanner.isAtEnd { scanner = PosixScanner(bytes: Array(Self.defaultRules.utf8)) }
        guard scanner.consume(","), let (start, startTime) = scanner.rule(),
              scanner.consume(","), let (end, endTime) = scanner.rule(), scanner.isAtEnd
        else { return nil }
        let daylight = LocalTimeType(utcOffset: Int32(-daylightOffset), isDST: true, abbreviation: daylightName)
        let rule = DaylightRule(standard: standard, daylight: daylight, start: start, startTime: startTime, end: end, endTime: endTime)
        // tzcode makes a rule that yields no transition in any year daylight saving time for good.
        if (2000 ..< 2400).allSatisfy({ rule.transitions(inYear: $0) == nil }) {
            self = .fixed(daylight)
        } else {
            self = .daylight(rule)
        }
    }
}

/// Reads the pieces of a POSIX TZ string as tzcode's `getzname`, `getqzname`, `getoffset`,
/// `getnum` and `getrule` do.
private struct PosixScanner {
    let bytes: [UInt8]
    var index = 0

    var isAtEnd: Bool { index == bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[index] }

    mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// `<…>` quoted, or a run up to a digit, sign or comma; may be empty.
    mutating func name() -> String? {
        let start: Int
        let end: Int
        if consume("<") {
            start = index
            while let byte = peek, byte != UInt8(ascii: ">") { index += 1 }
            end = index
            guard consume(">") else { return nil }
        } else {
            start = index
            while let byte = peek, !(UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte),
                  byte != UInt8(ascii: ","), byte != UInt8(ascii: "-"), byte != UInt8(ascii: "+") {
                index += 1
            }
            end = index
        }
        return String(decoding: bytes[start ..< end], as: UTF8.self)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, positive west of Greenwich; hours 0…167.
    mutating func offset() -> Int64? {
        let isNegative = consume("-")
        if !isNegative { _ = consume("+") }
        guard let hours = number(upTo: 167) else { return nil }
        var seconds = Int64(hours) * 3600
        if consume(":") {
            guard let minutes = number(upTo: 59) else { return nil }
            seconds += Int64(minutes) * 60
            if consume(":") {
                guard let extra = number(upTo: 60) else { return nil }
                seconds += Int64(extra)
            }
        }
        return isNegative ? -seconds : seconds
    }

    /// One or more digits, no more than `maximum`.
    mutating func number(upTo maximum: Int) -> Int? {
        var value = 0
        var digits = 0
        while let byte = peek, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            guard value <= maximum else { return nil }
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time` (signed; 02:00:00 when absent).
    mutating func rule() -> (PosixTimeZone.RuleDate, Int64)? {
        let date: PosixTimeZone.RuleDate
        if consume("J") {
            guard let day = number(upTo: 365), day >= 1 else { return nil }
            date = .julianDay(day)
        } else if consume("M") {
            guard let month = number(upTo: 12), month >= 1, consume("."),
                  let week = number(upTo: 5), week >= 1, consume("."),
                  let weekday = number(upTo: 6)
            else { return nil }
            date = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let day = number(upTo: 365) else { return nil }
            date = .zeroBasedDay(day)
        }
        guard consume("/") else { return (date, 7200) }
        guard let time = offset() else { return nil }
        return (date, time)
    }
}

// MARK: - TZif

/// Reads TZif data (RFC 8536 §3).
private struct TZifReader {
    let bytes: [UInt8]
    var offset = 0

    /// The six counts of a TZif header (RFC 8536 §3.1), in file order.
    struct Counts {
        var isUTCCount: Int, isStandardCount: Int, leapCount: Int
        var timeCount: Int, typeCount: Int, characterCount: Int

        /// The length of the data block that follows the header (RFC 8536 §3.2).
        func dataLength(timeSize: Int) -> Int {
            timeCount * (timeSize + 1) + typeCount * 6 + characterCount
                + leapCount * (timeSize + 4) + isStandardCount + isUTCCount
        }
    }

    struct Block {
        var times: [Int64]
        var typeIndices: [UInt8]
        var types: [LocalTimeType]
        var leapSecondCount: Int
    }

    static func corrupt(_ reason: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid TZif data: \(reason)")
    }

    mutating func bigEndian(size: Int) throws(SluiceError) -> Int64 {
        guard offset + size <= bytes.count else { throw Self.corrupt("data ends early") }
        var value: UInt64 = 0
        for byte in bytes[offset ..< offset + size] { value = value << 8 | UInt64(byte) }
        offset += size
        // Sign-extend: TZif times and offsets are two's complement.
        let shift = UInt64(64 - 8 * size)
        return Int64(bitPattern: value << shift) >> Int64(shift)
    }

    mutating func header() throws(SluiceError) -> (version: Int, counts: Counts) {
        guard offset + 44 <= bytes.count, bytes[offset ..< offset + 4].elementsEqual("TZif".utf8) else {
            throw Self.corrupt("no TZif header")
        }
        let versionByte = bytes[offset + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - Int(UInt8(ascii: "0"))
        guard version >= 1 else { throw Self.corrupt("unknown version") }
        offset += 20
        var values: [Int] = []
        for _ in 0 ..< 6 {
            let count = try bigEndian(size: 4)
            // Counts are unsigned 32-bit; anything that does not fit the file is caught below.
            guard count >= 0, count < 1 << 24 else { throw Self.corrupt("count out of range") }
            values.append(Int(count))
        }
        let counts = Counts(isUTCCount: values[0], isStandardCount: values[1], leapCount: values[2],
                            timeCount: values[3], typeCount: values[4], characterCount: values[5])
        guard counts.typeCount > 0, counts.characterCount > 0,
              counts.isUTCCount == 0 || counts.isUTCCount == counts.typeCount,
              counts.isStandardCount == 0 || counts.isStandardCount == counts.typeCount
        else { throw Self.corrupt("inconsistent counts") }
        return (version, counts)
    }

    mutating func block(_ counts: Counts, timeSize: Int) throws(SluiceError) -> Block {
        guard offset + counts.dataLength(timeSize: timeSize) <= bytes.count else { throw Self.corrupt("data ends early") }
        var times: [Int64] = []
        times.reserveCapacity(counts.timeCount)
        for _ in 0 ..< counts.timeCount {
            let time = try bigEndian(size: timeSize)
            guard times.last.map({ $0 < time }) ?? true else { throw Self.corrupt("transitions out of order") }
            times.append(time)
        }
        let typeIndices = Array(bytes[offset ..< offset + counts.timeCount])
        offset += counts.timeCount
        guard typeIndices.allSatisfy({ Int($0) < counts.typeCount }) else { throw Self.corrupt("transition type out of range") }
        var records: [(utcOffset: Int64, isDST: Bool, abbreviationIndex: Int)] = []
        for _ in 0 ..< counts.typeCount {
            let utcOffset = try bigEndian(size: 4)
            let isDST = bytes[offset]
            let abbreviationIndex = Int(bytes[offset + 1])
            offset += 2
            guard utcOffset != Int64(Int32.min), isDST <= 1, abbreviationIndex < counts.characterCount else {
                throw Self.corrupt("invalid local time type")
            }
            records.append((utcOffset, isDST == 1, abbreviationIndex))
        }
        let characters = bytes[offset ..< offset + counts.characterCount]
        offset += counts.characterCount
        let types = records.map { record in
            let start = characters.startIndex + record.abbreviationIndex
            let end = characters[start...].firstIndex(of: 0) ?? characters.endIndex
            return LocalTimeType(utcOffset: Int32(record.utcOffset), isDST: record.isDST,
                                 abbreviation: String(decoding: characters[start ..< end], as: UTF8.self))
        }
        // Leap-second records and the standard/wall and UT/local indicators are not needed:
        // the indicators only matter to POSIX-rule emulation with the posixrules file.
        offset += counts.leapCount * (timeSize + 4) + counts.isStandardCount + counts.isUTCCount
        return Block(times: times, typeIndices: typeIndices, types: types, leapSecondCount: counts.leapCount)
    }

    /// The footer's TZ string (RFC 8536 §3.3), nil when it is empty.
    mutating func footer() throws(SluiceError) -> String? {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\n"),
              let end = bytes[(offset + 1)...].firstIndex(of: UInt8(ascii: "\n"))
        else { throw Self.corrupt("no footer") }
        let text = String(decoding: bytes[(offset + 1) ..< end], as: UTF8.self)
        offset = end + 1
        return text.isEmpty ? nil : text
    }
}

// MARK: - The database

/// The time zones of a tzdata directory, looked up by name as PostgreSQL does and cached.
///
/// One instance serves the server (it belongs in the `Environment`); lookups are thread-safe.
/// Parsed zones are kept for the life of the instance, keyed by upper-cased name.
package final class TimeZoneDatabase: Sendable {
    /// The tzdata directory, without a trailing slash.
    package let directory: String
    private let cache = Mutex<[String: TimeZoneRules]>([:])

    /// `TZDIR` when set and not empty, else `/usr/share/zoneinfo`.
    package static var systemDirectory: String {
        if let value = getenv("TZDIR"), value.pointee != 0 { return String(cString: value) }
        return "/usr/share/zoneinfo"
    }

    package init(directory: String = TimeZoneDatabase.systemDirectory) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
    }

    /// The zone a name denotes, as PostgreSQL's `pg_tzset` resolves it (for `AT TIME ZONE` and
    /// `timezone(zone, …)`):
    ///
    /// 1. `GMT` (any case) is UTC abbreviated `GMT`.
    /// 2. A file of the tzdata directory, matched case-insensitively one path component at a
    ///    time (`america/new_york` is `America/New_York`); a leading `:` is dropped. Empty
    ///    components and components starting with `.` never match, so `../etc/passwd`,
    ///    `./UTC`, `America//New_York` and absolute paths are unknown.
    /// 3. Otherwise the name upper-cased, read as a POSIX TZ string (`UTC+3` is three hours
    ///    *west* of UTC, and so is `+3`; `<+0330>-3:30` is 3:30 east), unless it starts with `:`.
    ///
    /// Unlike PostgreSQL, which applies leap-second records, zones with them (`right/…`) are
    /// rejected. Time zone abbreviations such as `PST`, which PostgreSQL's `AT TIME ZONE`
    /// consults before zone names, are not known here.
    /// - Throws: `invalid_parameter_value` (22023) `time zone "…" not recognized`.
    package func rules(named name: String) throws(SluiceError) -> TimeZoneRules {
        let rules = try lookUp(name)
        if rules.usesLeapSeconds { throw Self.leapSecondsError(name) }
        return rules
    }

    /// The zone of `SET TimeZone = value`, as PostgreSQL's `check_timezone` resolves it:
    ///
    /// 1. A number (after leading white space; decimal, exponent or hexadecimal, as `strtod`
    ///    reads it) is hours *east* of UTC, the ISO sign: `-8` is UTC-8, `5.5` is UTC+5:30,
    ///    named `<-08>+08` and `<+05:30>-05:30`. It must be below 168 hours either way.
    /// 2. Anything else is a zone name as `rules(named:)` reads it, so `+05:30`, which is not a
    ///    number, is the POSIX string for 5:30 *west* of UTC (`UTC+3` and `EST5` likewise are
    ///    west). A zone whose offset on 2000-01-01 has a seconds part is rejected as PostgreSQL's
    ///    leap-second check does.
    ///
    /// `SET TIME ZONE INTERVAL '…'` is `TimeZoneRules.fixedOffset(secondsEast:)`.
    /// - Throws: `invalid_parameter_value` (22023) `invalid value for parameter "TimeZone": "…"`.
    package func sessionTimeZone(setting value: String) throws(SluiceError) -> TimeZoneRules {
        if let hours = Self.hours(value) {
            // PostgreSQL converts to whole seconds by truncation toward zero.
            guard hours.isFinite, abs(hours) * 3600 < 168 * 3600,
                  let rules = TimeZoneRules.fixedOffset(secondsEast: Int64(hours * 3600))
            else {
                throw SluiceError(.invalidParameterValue, "invalid value for parameter \"TimeZone\": \"\(value)\"",
                                  detail: "UTC timezone offset is out of range.")
            }
            return rules
        }
        let rules: TimeZoneRules
        do {
            rules = try lookUp(value)
        } catch {
            throw SluiceError(.invalidParameterValue, "invalid value for parameter \"TimeZone\": \"\(value)\"", detail: error.detail)
        }
        let secondsAt2000 = rules.offset(atUTC: 946_684_800_000_000).utcOffset % 60
        if rules.usesLeapSeconds || secondsAt2000 != 0 { throw Self.leapSecondsError(value) }
        return rules
    }

    /// The value `strtod` would read from all of `text`, or nil when it is not a number.
    private static func hours(_ text: String) -> Double? {
        let whiteSpace: Set<Character> = [" ", "\t", "\n", "\u{0B}", "\u{0C}", "\r"]
        let trimmed = text.drop(while: { whiteSpace.contains($0) })
        return Double(trimmed)
    }

    private static func leapSecondsError(_ name: String) -> SluiceError {
        SluiceError(.invalidParameterValue, "time zone \"\(name)\" appears to use leap seconds",
                    detail: "Sluice does not support leap seconds.")
    }

    private static func unknownZone(_ name: String, detail: String? = nil) -> SluiceError {
        SluiceError(.invalidParameterValue, "time zone \"\(name)\" not recognized", detail: detail)
    }

    private func lookUp(_ name: String) throws(SluiceError) -> TimeZoneRules {
        // PostgreSQL's TZ_STRLEN_MAX.
        guard name.utf8.count <= 255 else { throw Self.unknownZone(name) }
        let key = String(decoding: name.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let rules: TimeZoneRules
        if key == "GMT" {
            rules = TimeZoneRules(fixedOffset: 0, abbreviation: "GMT", name: "GMT")
        } else {
            let fileName = name.hasPrefix(":") ? String(name.dropFirst()) : name
            var fileError: SluiceError?
            var fromFile: TimeZoneRules?
            if let (path, canonicalName) = resolve(fileName) {
                do {
                    fromFile = try TimeZoneRules(tzif: try Self.contents(ofFile: path), name: canonicalName)
                } catch {
                    fileError = error
                }
            }
            if let fromFile {
                rules = fromFile
            } else if !key.hasPrefix(":"), let posix = TimeZoneRules(posixTZ: key) {
                rules = posix
            } else {
                throw Self.unknownZone(name, detail: fileError.map { "\($0.message)." })
            }
        }
        cache.withLock { $0[key] = rules }
        return rules
    }

    /// The path of the file `name` denotes and its canonical spelling, matching each component
    /// case-insensitively (ASCII) as PostgreSQL's `scan_directory_ci`; an exact match wins.
    private func resolve(_ name: String) -> (path: String, canonicalName: String)? {
        var path = directory
        var canonical: [String] = []
        for component in name.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, !component.hasPrefix("."),
                  let entry = Self.entry(matching: String(component), in: path)
            else { return nil }
            path += "/" + entry
            canonical.append(entry)
        }
        return (path, canonical.joined(separator: "/"))
    }

    private static func entry(matching component: String, in directory: String) -> String? {
        guard let stream = opendir(directory) else { return nil }
        defer { closedir(stream) }
        let wanted = component.utf8.map(asciiLowercased)
        var match: String?
        while let entry = readdir(stream) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if entryName.hasPrefix(".") { continue }
            if entryName == component { return entryName }
            if match == nil && entryName.utf8.map(asciiLowercased) == wanted { match = entryName }
        }
        return match
    }

    /// The bytes of a regular file of at most 1 MiB (TZif files are a few kilobytes).
    private static func contents(ofFile path: String) throws(SluiceError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SluiceError(.ioError, "could not open time zone file \"\(path)\"") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 1 << 20 else {
            throw SluiceError(.ioError, "\"\(path)\" is not a time zone file")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw SluiceError(.ioError, "could not read time zone file \"\(path)\"") }
            if count == 0 { break }
            bytes += buffer[0 ..< count]
            guard bytes.count <= 1 << 20 else { throw SluiceError(.ioError, "\"\(path)\" is not a time zone file") }
        }
        return bytes
    }
}

private func asciiLowercased(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte + 0x20 : byte
}

extension TimeZoneRules {
    fileprivate init(fixedOffset seconds: Int32, abbreviation: String, name: String) {
        self.init(fixed: LocalTimeType(utcOffset: seconds, isDST: false, abbreviation: abbreviation), name: name)
    }
}
