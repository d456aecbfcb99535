import SluiceCore

/// Fast paths for the forms producers write most: keys in the order of the previous object,
/// ASCII strings without escapes, short integers, booleans, and `YYYY-MM-DDTHH:MM:SS[.f]Z`
/// timestamps.
///
/// Each one either consumes a value it is sure about, giving exactly what the general path
/// gives, or returns nil without moving the cursor, and the general path (which also produces
/// the errors) runs from the same place.
extension JSONScanner {
    /// Whether the key at the cursor (an opening quote) is exactly the `length` bytes at
    /// `name`; if so, steps past its closing quote. `name` must be readable for at least eight
    /// bytes, and hold no quote, backslash or control byte (so a key whose raw bytes equal it
    /// has no escape and is valid).
    @inline(__always)
    mutating func consumeKey(equalTo name: UnsafePointer<UInt8>, length: Int) -> Bool {
        let textStart = position + 1
        let closingQuote = textStart + length
        guard closingQuote < count, base[closingQuote] == UInt8(ascii: "\"") else { return false }
        let text = base + textStart
        if length <= 8 && textStart + 8 <= count {
            // One word: the bytes beyond the name are masked off on both sides.
            let mask: UInt64 = length == 8 ? ~0 : (1 << UInt64(length &* 8)) &- 1
            let difference = UnsafeRawPointer(text).loadUnaligned(as: UInt64.self) ^ UnsafeRawPointer(name).loadUnaligned(as: UInt64.self)
            guard difference.littleEndian & mask == 0 else { return false }
        } else if length > 8 {
            var offset = 0
            while offset + 8 < length {
                guard UnsafeRawPointer(text + offset).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(name + offset).loadUnaligned(as: UInt64.self) else {
                    return false
                }
                offset += 8
            }
            // The last word overlaps the previous one rather than reading past the name.
            guard UnsafeRawPointer(text + length - 8).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(name + length - 8).loadUnaligned(as: UInt64.self) else {
                return false
            }
        } else {
            guard memcmpEqual(text, name, length) else { return false }
        }
        position = closingQuote + 1
        return true
    }

    /// The raw bytes of the string at the cursor (an opening quote) if it is all printable
    /// ASCII without escapes; the cursor then ends after the closing quote. Nil, with the
    /// cursor unmoved, for anything else.
    @inline(__always)
    mutating func readPlainString() -> Range<Int>? {
        let start = position + 1
        var cursor = start
        while cursor + 8 <= count {
            let word = UnsafeRawPointer(base + cursor).loadUnaligned(as: UInt64.self)
            let special = JSONScanner.specialBytes(word)
            if special != 0 {
                cursor += special.littleEndian.trailingZeroBitCount >> 3
                return finishPlainString(start: start, at: cursor)
            }
            cursor += 8
        }
        while cursor < count {
            let byte = base[cursor]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            cursor += 1
        }
        return finishPlainString(start: start, at: cursor)
    }

    @inline(__always)
    private mutating func finishPlainString(start: Int, at cursor: Int) -> Range<Int>? {
        guard cursor < count, base[cursor] == UInt8(ascii: "\"") else { return nil }
        position = cursor + 1
        return start ..< cursor
    }

    /// The high bit of each byte of `word` that is a quote, a backslash, a control byte or
    /// non-ASCII, and possibly of bytes above the lowest such byte (a borrow only carries
    /// upward), so the lowest flagged byte is always a real one.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        return (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20) | word) & highs
    }

    /// An integer literal of at most 17 digits, with no fraction or exponent, at the cursor.
    /// Nil, with the cursor unmoved, for anything else (longer literals, fractions, exponents,
    /// leading zeros, malformed numbers).
    @inline(__always)
    mutating func readShortInteger() -> Int64? {
        var cursor = position
        let isNegative = cursor < count && base[cursor] == UInt8(ascii: "-")
        if isNegative { cursor += 1 }
        let digitStart = cursor
        var magnitude: Int64 = 0
        while cursor < count {
            let digit = base[cursor] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            magnitude = magnitude &* 10 &+ Int64(digit)
            cursor += 1
        }
        let digitCount = cursor - digitStart
        guard digitCount > 0, digitCount <= 17 else { return nil }
        guard digitCount == 1 || base[digitStart] != UInt8(ascii: "0") else { return nil }
        if cursor < count {
            let next = base[cursor]
            guard next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        }
        position = cursor
        return isNegative ? -magnitude : magnitude
    }

    /// `true` or `false` at the cursor, consumed; nil, with the cursor unmoved, for anything else.
    @inline(__always)
    mutating func readBoolean() -> Bool? {
        guard position + 4 <= count else { return nil }
        let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self).littleEndian
        if word == 0x6575_7274 {  // "true"
            position += 4
            return true
        }
        if word == 0x736C_6166, position + 5 <= count, base[position + 4] == UInt8(ascii: "e") {  // "fals" + "e"
            position += 5
            return false
        }
        return nil
    }

    /// The string at the cursor if it is `YYYY-MM-DD(T|t| )HH:MM:SS[.f{1,6}](Z|z)` exactly —
    /// the form JSON producers write — as microseconds since 1970 UTC; the cursor then ends
    /// after the closing quote. Nil, with the cursor unmoved, for anything else (other forms,
    /// offsets, more than six fraction digits, invalid dates, escapes): the general parser
    /// takes those, and agrees with this one on the forms it accepts.
    ///
    /// `dates` remembers the last date read, as consecutive events mostly share one.
    @inline(__always)
    mutating func readCommonTimestamp(dates: inout JSONDateCache) -> Int64? {
        let start = position + 1
        // The shortest form, `YYYY-MM-DDTHH:MM:SSZ`, is 20 bytes, then the closing quote.
        guard start + 21 <= count else { return nil }
        let text = base + start
        var isMalformed = false
        @inline(__always) func twoDigits(_ offset: Int) -> Int {
            let tens = text[offset] &- UInt8(ascii: "0"), ones = text[offset + 1] &- UInt8(ascii: "0")
            isMalformed = isMalformed || tens > 9 || ones > 9
            return Int(tens) &* 10 &+ Int(ones)
        }
        let dateWord = UnsafeRawPointer(text).loadUnaligned(as: UInt64.self)
        let dateTail = UnsafeRawPointer(text + 8).loadUnaligned(as: UInt16.self)
        let days: Int
        if dateWord == dates.word && dateTail == dates.tail {
            days = dates.days
        } else {
            guard text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-") else { return nil }
            let year = twoDigits(0) &* 100 &+ twoDigits(2)
            let month = twoDigits(5), day = twoDigits(8)
            guard !isMalformed, year > 0, month >= 1, month <= 12, day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }
            days = CivilDate(year: year, month: month, day: day).daysSinceUnixEpoch
            dates = JSONDateCache(word: dateWord, tail: dateTail, days: days)
        }
        guard text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"),
              text[10] | 0x20 == UInt8(ascii: "t") || text[10] == UInt8(ascii: " ") else { return nil }
        let hour = twoDigits(11), minute = twoDigits(14), second = twoDigits(17)
        guard !isMalformed, hour < 24, minute < 60, second < 60 else { return nil }
        var offset = 19
        var fraction: Int64 = 0
        if text[offset] == UInt8(ascii: ".") {
            offset += 1
            let fractionStart = offset
            // At most six digits: a seventh would need rounding, which the general path does.
            while start + offset < count, offset - fractionStart < 7 {
                let digit = text[offset] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                fraction = fraction &* 10 &+ Int64(digit)
                offset += 1
            }
            let fractionDigits = offset - fractionStart
            guard fractionDigits >= 1, fractionDigits <= 6 else { return nil }
            for _ in fractionDigits ..< 6 { fraction &*= 10 }
        }
        guard start + offset + 1 < count, text[offset] | 0x20 == UInt8(ascii: "z"), text[offset + 1] == UInt8(ascii: "\"") else { return nil }
        position = start + offset + 2
        return Int64(days) &* TemporalUnits.microsecondsPerDay &+ Int64(hour) &* TemporalUnits.microsecondsPerHour
            &+ Int64(minute) &* TemporalUnits.microsecondsPerMinute &+ Int64(second) &* TemporalUnits.microsecondsPerSecond &+ fraction
    }
}

/// The last date ``JSONScanner/readCommonTimestamp(dates:)`` parsed: its first ten bytes
/// (`YYYY-MM-DD`, valid) and its days since 1970-01-01. All-zero bytes never match a date.
struct JSONDateCache {
    var word: UInt64 = 0
    var tail: UInt16 = 0
    var days: Int = 0
}
