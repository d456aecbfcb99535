/// A parser for the common Postgres date/time input forms (`DecodeDateTime` subset):
/// `2024-01-15`, `20240115`, `2024-01-15 10:30:00`, `2024-01-15T10:30:00.123456`, with an
/// optional zone (`Z`, `UTC`, `GMT`, `+05:30`, `-08`, `+0530`), ` BC`/` AD`, and the special
/// words `infinity`, `-infinity`, `epoch`, `allballs`.
struct DateTimeFields {
    var date: CivilDate?
    /// Microseconds since midnight.
    var time: Int64?
    /// Seconds east of UTC.
    var zoneOffset: Int?
    var special: Special?

    enum Special { case infinity, negativeInfinity, epoch, allBalls }

    enum Failure: Error { case syntax, fieldOutOfRange, zoneOutOfRange }

    /// Parses `text`; the caller maps failures to the messages of its type.
    static func parse(_ text: String) throws(Failure) -> DateTimeFields {
        var scanner = Scanner(Array(text.lowercased().utf8))
        scanner.skipSpaces()
        var fields = DateTimeFields()
        if scanner.isAtEnd { throw .syntax }
        if let word = scanner.peekWord() {
            let special: Special? = switch word {
            case "infinity", "+infinity": .infinity
            case "-infinity": .negativeInfinity
            case "epoch": .epoch
            case "allballs": .allBalls
            default: nil
            }
            if let special {
                scanner.position += word.utf8.count
                scanner.skipSpaces()
                guard scanner.isAtEnd else { throw .syntax }
                fields.special = special
                return fields
            }
        }
        // A date comes first when the leading number is followed by '-' or has 8 digits.
        let leadingDigits = scanner.countDigits()
        let next = scanner.byte(at: scanner.position + leadingDigits)
        if leadingDigits > 0, next == UInt8(ascii: "-") || (leadingDigits == 8 && next != UInt8(ascii: ":")) {
            fields.date = try parseDate(&scanner)
            if scanner.peek == UInt8(ascii: "t") {
                scanner.position += 1
                guard scanner.countDigits() > 0 else { throw .syntax }
            } else {
                scanner.skipSpaces()
            }
        }
        if scanner.countDigits() > 0 {
            fields.time = try parseTime(&scanner)
            let before = scanner.position
            scanner.skipSpaces()
            if let zone = try parseZone(&scanner) {
                fields.zoneOffset = zone
            } else {
                scanner.position = before
            }
        } else if fields.date != nil, let zone = try parseZone(&scanner) {
            fields.zoneOffset = zone
        }
        scanner.skipSpaces()
        if let word = scanner.peekWord(), word == "bc" || word == "ad" {
            scanner.position += 2
            if word == "bc" {
                guard var date = fields.date, date.year > 0 else { throw .syntax }
                date.year = 1 - date.year
                fields.date = date
            }
            scanner.skipSpaces()
        }
        guard scanner.isAtEnd, fields.date != nil || fields.time != nil else { throw .syntax }
        if let date = fields.date, !date.isValid { throw .fieldOutOfRange }
        return fields
    }

    private static func parseDate(_ scanner: inout Scanner) throws(Failure) -> CivilDate {
        let count = scanner.countDigits()
        if count == 8, scanner.byte(at: scanner.position + 8) != UInt8(ascii: "-") {
            let year = scanner.readNumber(digits: 4), month = scanner.readNumber(digits: 2), day = scanner.readNumber(digits: 2)
            return CivilDate(year: year, month: month, day: day)
        }
        guard count >= 1, count <= 7 else { throw .syntax }
        let year = scanner.readNumber(digits: count)
        guard scanner.consume(UInt8(ascii: "-")) else { throw .syntax }
        let monthDigits = scanner.countDigits()
        guard (1 ... 2).contains(monthDigits) else { throw .syntax }
        let month = scanner.readNumber(digits: monthDigits)
        guard scanner.consume(UInt8(ascii: "-")) else { throw .syntax }
        let dayDigits = scanner.countDigits()
        guard (1 ... 2).contains(dayDigits) else { throw .syntax }
        let day = scanner.readNumber(digits: dayDigits)
        if let byte = scanner.peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { throw .syntax }
        guard (1 ... 12).contains(month), day >= 1, day <= 31 else { throw .fieldOutOfRange }
        if year == 0 { throw .fieldOutOfRange }
        return CivilDate(year: year, month: month, day: day)
    }

    /// `H[H]:MM[:SS[.ffffff]]` or `HHMMSS[.ffffff]` after a date; fractions round half to even
    /// at the microsecond as Postgres's `rint` does.
    private static func parseTime(_ scanner: inout Scanner) throws(Failure) -> Int64 {
        let hourDigits = scanner.countDigits()
        var hour = 0, minute = 0, second = 0
        if hourDigits == 6 || hourDigits == 4 {
            hour = scanner.readNumber(digits: 2)
            minute = scanner.readNumber(digits: 2)
            if hourDigits == 6 { second = scanner.readNumber(digits: 2) }
        } else {
            guard (1 ... 2).contains(hourDigits) else { throw .syntax }
            hour = scanner.readNumber(digits: hourDigits)
            guard scanner.consume(UInt8(ascii: ":")), scanner.countDigits() == 2 else { throw .syntax }
            minute = scanner.readNumber(digits: 2)
            if scanner.consume(UInt8(ascii: ":")) {
                guard scanner.countDigits() == 2 else { throw .syntax }
                second = scanner.readNumber(digits: 2)
            }
        }
        var fraction: Int64 = 0
        if scanner.peek == UInt8(ascii: ".") {
            scanner.position += 1
            fraction = scanner.readFraction()
        }
        guard minute < 60, second <= 60, hour <= 24 else { throw .fieldOutOfRange }
        let total = Int64(hour) * TemporalUnits.microsecondsPerHour + Int64(minute) * TemporalUnits.microsecondsPerMinute
            + Int64(second) * TemporalUnits.microsecondsPerSecond + fraction
        guard total <= TemporalUnits.microsecondsPerDay else { throw .fieldOutOfRange }
        return total
    }

    /// A zone suffix, in seconds east of UTC, or nil when none starts here.
    private static func parseZone(_ scanner: inout Scanner) throws(Failure) -> Int? {
        if let word = scanner.peekWord(), word == "z" || word == "utc" || word == "gmt" || word == "zulu" {
            scanner.position += word.utf8.count
            return 0
        }
        guard let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        scanner.position += 1
        let digits = scanner.countDigits()
        var hours = 0, minutes = 0, seconds = 0
        switch digits {
        case 1, 2:
            hours = scanner.readNumber(digits: digits)
            if scanner.consume(UInt8(ascii: ":")) {
                guard scanner.countDigits() == 2 else { throw .syntax }
                minutes = scanner.readNumber(digits: 2)
                if scanner.consume(UInt8(ascii: ":")) {
                    guard scanner.countDigits() == 2 else { throw .syntax }
                    seconds = scanner.readNumber(digits: 2)
                }
            }
        case 3, 4:
            hours = scanner.readNumber(digits: digits - 2)
            minutes = scanner.readNumber(digits: 2)
        case 6:
            hours = scanner.readNumber(digits: 2)
            minutes = scanner.readNumber(digits: 2)
            seconds = scanner.readNumber(digits: 2)
        default:
            throw .syntax
        }
        guard minutes < 60, seconds < 60 else { throw .fieldOutOfRange }
        guard hours <= 15 else { throw .zoneOutOfRange }
        let offset = hours * 3600 + minutes * 60 + seconds
        return sign == UInt8(ascii: "-") ? -offset : offset
    }
}

/// A cursor over ASCII bytes.
struct Scanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }
    var peek: UInt8? { byte(at: position) }

    func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpaces() {
        while let byte = peek, byte == 0x20 || (0x09 ... 0x0D).contains(byte) { position += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    /// The number of ASCII digits starting at the cursor.
    func countDigits() -> Int {
        var index = position
        while let byte = byte(at: index), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - position
    }

    /// Reads exactly `digits` digits (the caller has counted them).
    mutating func readNumber(digits: Int) -> Int {
        var value = 0
        for _ in 0 ..< digits {
            value = value &* 10 &+ Int(bytes[position] - UInt8(ascii: "0"))
            position += 1
        }
        return value
    }

    /// Reads the digits after a decimal point as microseconds, rounding half to even.
    mutating func readFraction() -> Int64 {
        var text = "0."
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            text.append(Character(Unicode.Scalar(byte)))
            position += 1
        }
        let value = Double(text) ?? 0
        return Int64((value * 1_000_000).rounded(.toNearestOrEven))
    }

    /// The run of letters (and a leading sign for `-infinity`) at the cursor, if any.
    func peekWord() -> String? {
        var index = position
        if let byte = byte(at: index), byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { index += 1 }
        let start = index
        while let byte = byte(at: index), byte >= UInt8(ascii: "a"), byte <= UInt8(ascii: "z") { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[position ..< index], as: UTF8.self)
    }
}
