#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import SluiceCore

// Expected values come from two independent oracles, run on Debian 12 with tzdata 2025b:
// - "zoneinfo": Python 3's `zoneinfo` over the same /usr/share/zoneinfo, e.g.
//   `datetime(2024, 3, 10, 7, tzinfo=timezone.utc).astimezone(ZoneInfo("America/New_York"))`
//   for utcoffset(), dst() and tzname();
// - "PostgreSQL": PostgreSQL 15.18 (Debian's build, system tzdata), e.g.
//   `SELECT extract(epoch FROM '2024-03-10 02:30'::timestamp AT TIME ZONE 'America/New_York') * 1000000`
//   for local-to-UTC conversions, and `SET TimeZone = …; SELECT current_setting('TimeZone'),
//   extract(timezone FROM '2024-07-15 12:00+00'::timestamptz), to_char(…, 'TZ')` for settings.
// Microsecond values are since 1970-01-01 00:00:00.

@Suite("Time zones from the system tzdata")
struct TimeZoneDatabaseTests {
    let database = TimeZoneDatabase(directory: "/usr/share/zoneinfo")

    func zone(_ name: String) throws -> TimeZoneRules { try database.rules(named: name) }

    func type(_ offset: Int32, _ isDST: Bool, _ abbreviation: String) -> LocalTimeType {
        LocalTimeType(utcOffset: offset, isDST: isDST, abbreviation: abbreviation)
    }

    // zoneinfo: the instants either side of the 2024 transitions.
    @Test func newYorkOffsetsAroundBothTransitions() throws {
        let newYork = try zone("America/New_York")
        #expect(newYork.offset(atUTC: 1_710_053_999_000_000) == type(-18000, false, "EST"))  // 2024-03-10 06:59:59Z
        #expect(newYork.offset(atUTC: 1_710_054_000_000_000) == type(-14400, true, "EDT"))   // 2024-03-10 07:00:00Z
        #expect(newYork.offset(atUTC: 1_730_613_599_000_000) == type(-14400, true, "EDT"))   // 2024-11-03 05:59:59Z
        #expect(newYork.offset(atUTC: 1_730_613_600_000_000) == type(-18000, false, "EST"))  // 2024-11-03 06:00:00Z
        #expect(newYork.localMicros(fromUTC: 1_710_054_000_000_000) == 1_710_039_600_000_000)  // 03:00 EDT
    }

    // PostgreSQL: `'…'::timestamp AT TIME ZONE 'America/New_York'`.
    @Test func newYorkLocalReadingsResolveGapsBeforeAndOverlapsAfter() throws {
        let newYork = try zone("America/New_York")
        // 2024-03-10 02:30 does not exist: the EST offset from before the jump, 07:30Z (03:30 EDT).
        #expect(newYork.utcMicros(fromLocal: 1_710_037_800_000_000) == 1_710_055_800_000_000)
        // 2024-03-10 02:00, 01:59:59 and 03:00.
        #expect(newYork.utcMicros(fromLocal: 1_710_036_000_000_000) == 1_710_054_000_000_000)
        #expect(newYork.utcMicros(fromLocal: 1_710_035_999_000_000) == 1_710_053_999_000_000)
        #expect(newYork.utcMicros(fromLocal: 1_710_039_600_000_000) == 1_710_054_000_000_000)
        // 2024-11-03 01:30 happens twice: the EST offset from after the fall back, 06:30Z.
        #expect(newYork.utcMicros(fromLocal: 1_730_597_400_000_000) == 1_730_615_400_000_000)
        // 2024-11-03 00:59:59.5 (fraction kept) and 02:00.
        #expect(newYork.utcMicros(fromLocal: 1_730_595_599_500_000) == 1_730_609_999_500_000)
        #expect(newYork.utcMicros(fromLocal: 1_730_599_200_000_000) == 1_730_617_200_000_000)
    }

    @Test func londonSwitchesAtOneUTC() throws {
        let london = try zone("Europe/London")
        // zoneinfo: 2024-03-31 00:59:59Z, 01:00Z, 2024-10-27 00:59:59Z, 01:00Z.
        #expect(london.offset(atUTC: 1_711_846_799_000_000) == type(0, false, "GMT"))
        #expect(london.offset(atUTC: 1_711_846_800_000_000) == type(3600, true, "BST"))
        #expect(london.offset(atUTC: 1_729_990_799_000_000) == type(3600, true, "BST"))
        #expect(london.offset(atUTC: 1_729_990_800_000_000) == type(0, false, "GMT"))
        // PostgreSQL: 2024-03-31 01:30 (gap) and 2024-10-27 01:30 (overlap) are both 01:30Z.
        #expect(london.utcMicros(fromLocal: 1_711_848_600_000_000) == 1_711_848_600_000_000)
        #expect(london.utcMicros(fromLocal: 1_729_992_600_000_000) == 1_729_992_600_000_000)
    }

    @Test func lordHoweHasHalfHourDaylightSaving() throws {
        let lordHowe = try zone("australia/lord_howe")
        // zoneinfo: 2024-04-06 14:59:59Z, 15:00Z, 2024-10-05 15:29:59Z, 15:30Z.
        #expect(lordHowe.offset(atUTC: 1_712_415_599_000_000) == type(39600, true, "+11"))
        #expect(lordHowe.offset(atUTC: 1_712_415_600_000_000) == type(37800, false, "+1030"))
        #expect(lordHowe.offset(atUTC: 1_728_142_199_000_000) == type(37800, false, "+1030"))
        #expect(lordHowe.offset(atUTC: 1_728_142_200_000_000) == type(39600, true, "+11"))
        // PostgreSQL: 2024-10-06 02:15 (in the 30-minute gap) is 2024-10-05 15:45Z;
        // 2024-04-07 01:45 (in the 30-minute overlap) is 2024-04-06 15:15Z.
        #expect(lordHowe.utcMicros(fromLocal: 1_728_180_900_000_000) == 1_728_143_100_000_000)
        #expect(lordHowe.utcMicros(fromLocal: 1_712_454_300_000_000) == 1_712_416_500_000_000)
    }

    @Test func kathmanduIsFiveFortyFive() throws {
        let kathmandu = try zone("Asia/Kathmandu")
        // zoneinfo: 2024-07-01Z, 1980-01-01Z, and 1900-01-01Z before the first transition (LMT).
        #expect(kathmandu.offset(atUTC: 1_719_792_000_000_000) == type(20700, false, "+0545"))
        #expect(kathmandu.offset(atUTC: 315_532_800_000_000) == type(19800, false, "+0530"))
        #expect(kathmandu.offset(atUTC: -2_208_988_800_000_000) == type(20476, false, "LMT"))
        // PostgreSQL: 2024-07-01 12:00 in Kathmandu is 06:15Z.
        #expect(kathmandu.utcMicros(fromLocal: 1_719_835_200_000_000) == 1_719_814_500_000_000)
    }

    @Test func instantsAfterTheTableFollowTheFooterRule() throws {
        let newYork = try zone("America/New_York")
        // zoneinfo: 2040-07-01 12:00Z, 2100-01-01Z, 2100-07-01Z.
        #expect(newYork.offset(atUTC: 2_224_756_800_000_000) == type(-14400, true, "EDT"))
        #expect(newYork.offset(atUTC: 4_102_444_800_000_000) == type(-18000, false, "EST"))
        #expect(newYork.offset(atUTC: 4_118_083_200_000_000) == type(-14400, true, "EDT"))
        // PostgreSQL: 2099-03-08 02:30 (gap) is 07:30Z; 2099-11-01 01:30 (overlap) is 06:30Z.
        #expect(newYork.utcMicros(fromLocal: 4_076_620_200_000_000) == 4_076_638_200_000_000)
        #expect(newYork.utcMicros(fromLocal: 4_097_179_800_000_000) == 4_097_197_800_000_000)
        // zoneinfo: 2050-01-01Z on Lord Howe; PostgreSQL: 2060-10-03 02:15 there is 2060-10-02 15:45Z.
        let lordHowe = try zone("Australia/Lord_Howe")
        #expect(lordHowe.offset(atUTC: 2_524_608_000_000_000) == type(39600, true, "+11"))
        #expect(lordHowe.utcMicros(fromLocal: 2_863_995_300_000_000) == 2_863_957_500_000_000)
    }

    @Test func instantsBeforeTheFirstTransitionUseLocalMeanTime() throws {
        let newYork = try zone("America/New_York")
        // zoneinfo: 1800-01-01Z; PostgreSQL: 1800-01-01 00:00 local is 04:56:02Z.
        #expect(newYork.offset(atUTC: -5_364_662_400_000_000) == type(-17762, false, "LMT"))
        #expect(newYork.utcMicros(fromLocal: -5_364_662_400_000_000) == -5_364_644_638_000_000)
    }

    @Test func etcZonesUsePOSIXSigns() throws {
        // zoneinfo: Etc/GMT+5 is five hours *west*; PostgreSQL: 12:00 there is 17:00Z.
        let gmtPlusFive = try zone("Etc/GMT+5")
        #expect(gmtPlusFive.offset(atUTC: 1_719_792_000_000_000) == type(-18000, false, "-05"))
        #expect(gmtPlusFive.utcMicros(fromLocal: 1_719_835_200_000_000) == 1_719_853_200_000_000)
        #expect(try zone("UTC").offset(atUTC: 0) == type(0, false, "UTC"))
        #expect(try zone("gmt").offset(atUTC: 0) == type(0, false, "GMT"))
    }

    // PostgreSQL: `SET TimeZone = 'america/new_york'; SHOW TimeZone` prints America/New_York.
    @Test func namesMatchCaseInsensitively() throws {
        #expect(try zone("america/new_york").name == "America/New_York")
        #expect(try zone("ASIA/KATHMANDU").name == "Asia/Kathmandu")
        #expect(try zone(":America/New_York").name == "America/New_York")
        #expect(try zone("zulu").name == "Zulu")
    }

    // PostgreSQL rejects each of these with `time zone "…" not recognized` (22023).
    @Test(arguments: ["Mars/Olympus_Mons", "../etc/passwd", "/etc/passwd", "/usr/share/zoneinfo/UTC", "./UTC",
                      "America//New_York", "America/", "America", "ABC", "Z", "", "zone.tab"])
    func unknownAndPathLikeNamesAreRejected(_ name: String) {
        #expect(throws: SluiceError.self) { try database.rules(named: name) }
        do {
            _ = try database.rules(named: name)
        } catch {
            #expect(error.code == .invalidParameterValue)
            #expect(error.message == "time zone \"\(name)\" not recognized")
        }
    }

    @Test func leapSecondZonesAreRejected() {
        #expect(throws: SluiceError(.invalidParameterValue, "time zone \"right/UTC\" appears to use leap seconds",
                                    detail: "Sluice does not support leap seconds.")) {
            try database.rules(named: "right/UTC")
        }
    }

    // PostgreSQL: SET TimeZone = value; SHOW TimeZone; extract(timezone …) and to_char(…, 'TZ')
    // at 2024-07-15 12:00Z. Numbers are hours east (ISO); everything else is a zone name, and a
    // POSIX string's sign is west-positive.
    @Test(arguments: [
        ("-8", "<-08>+08", -28800, "-08"),
        ("5.5", "<+05:30>-05:30", 19800, "+05:30"),
        ("+5", "<+05>-05", 18000, "+05"),
        ("0x10", "<+16>-16", 57600, "+16"),
        ("+05:30", "+05:30", -19800, ""),
        ("UTC+3", "UTC+3", -10800, "UTC"),
        ("EST5", "EST5", -18000, "EST"),
        ("foo+3bar", "FOO+3BAR", -7200, "BAR"),
        ("<+0330>-3:30", "<+0330>-3:30", 12600, "+0330"),
        ("EST5EDT", "EST5EDT", -14400, "EDT"),
        ("america/new_york", "America/New_York", -14400, "EDT"),
        ("EST5EDT4,0/0,J365/25", "EST5EDT4,0/0,J365/25", -14400, "EDT"),
    ] as [(String, String, Int32, String)])
    func sessionTimeZoneSettings(_ value: String, _ name: String, _ offset: Int32, _ abbreviation: String) throws {
        let rules = try database.sessionTimeZone(setting: value)
        #expect(rules.name == name)
        let july = rules.offset(atUTC: 1_721_044_800_000_000)
        #expect(july.utcOffset == offset)
        #expect(july.abbreviation == abbreviation)
    }

    // PostgreSQL: `SET TimeZone` fails for each (the first two: "UTC timezone offset is out of range.").
    @Test(arguments: ["168", "inf", "ABC", "ABC+168", "EST5,M3.2.0,M11.1.0", "EST5EDT,J0,J365", "EST+5:60"])
    func invalidSessionTimeZoneSettings(_ value: String) {
        #expect(throws: SluiceError.self) { try database.sessionTimeZone(setting: value) }
        do {
            _ = try database.sessionTimeZone(setting: value)
        } catch {
            #expect(error.message == "invalid value for parameter \"TimeZone\": \"\(value)\"")
        }
    }

    @Test func settingWithASecondsOffsetIsRejectedAsLeapSeconds() {
        // PostgreSQL: SET TimeZone = 'ABC+5:30:15' reports leap seconds (its 2000-01-01 check).
        #expect(throws: SluiceError(.invalidParameterValue, "time zone \"ABC+5:30:15\" appears to use leap seconds",
                                    detail: "Sluice does not support leap seconds.")) {
            try database.sessionTimeZone(setting: "ABC+5:30:15")
        }
    }

    @Test func posixRulesWithNegativeAndLateTimes() throws {
        // PostgreSQL, SET TimeZone = '<-03>3<-02>,M3.5.0/-2,M10.5.0/-1': 2024-03-30 22:30 local
        // (a gap: DST starts at 22:00 on Saturday) is 2024-03-31 01:30Z, shown 23:30-02.
        let nuukLike = try zone("<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")
        #expect(nuukLike.utcMicros(fromLocal: 1_711_837_800_000_000) == 1_711_848_600_000_000)
        // PostgreSQL: 2024-01-01 00:00Z in the all-year DST zone shows 2023-12-31 20:00-04.
        let alwaysDaylight = try zone("EST5EDT4,0/0,J365/25")
        #expect(alwaysDaylight.offset(atUTC: 1_704_067_200_000_000) == type(-14400, true, "EDT"))
    }

    @Test func fixedOffsetsAreNamedAsPostgresNamesThem() throws {
        let india = try #require(TimeZoneRules.fixedOffset(secondsEast: 19800))
        #expect(india.name == "<+05:30>-05:30")
        #expect(india.offset(atUTC: 0) == type(19800, false, "+05:30"))
        #expect(india.utcMicros(fromLocal: 19_800_000_000) == 0)
        #expect(TimeZoneRules.fixedOffset(secondsEast: -18442)?.name == "<-05:07:22>+05:07:22")
        #expect(TimeZoneRules.fixedOffset(secondsEast: 168 * 3600) == nil)
    }

    /// A column's timestamps written one after another (the day's text kept, UTC not looked
    /// up) read as each written alone, across days, zones' transitions, BC and the infinities.
    @Test func aTimestampWriterWritesWhatEachTimestampAloneWrites() throws {
        let day: Int64 = 86_400_000_000
        var values: [Int64] = [.max, .min, 0, -1, 1, day - 1, day, -day, -62_135_596_800_000_000 - 1, -62_135_596_800_000_000 + day / 2]
        // Around New York's 2024 spring transition, a second at a time and an hour at a time.
        for step in stride(from: Int64(-7200), through: 7200, by: 1) { values.append(1_710_054_000_000_000 + step * 1_000_000 + 250) }
        for hour in 0 ..< 400 { values.append(1_700_000_000_000_000 + Int64(hour) * 3_600_000_000) }
        for zone in [TimeZoneRules.utc, try zone("America/New_York"), try #require(TimeZoneRules.fixedOffset(secondsEast: 19800))] {
            for withZone in [true, false] {
                var writer = TemporalText.TimestampWriter(withZone: withZone, zone: zone)
                var together: [UInt8] = []
                var alone: [UInt8] = []
                for value in values {
                    writer.append(value, to: &together)
                    together.append(10)
                    TemporalText.appendTimestamp(value, withZone: withZone, zone: zone, to: &alone)
                    alone.append(10)
                }
                #expect(together == alone, "\(zone.name) \(withZone)")
            }
        }
        // PostgreSQL: SET TimeZone = 'UTC'; SELECT '2024-03-10 07:00:00.5+00'::timestamptz, '0044-03-15 12:00 BC'::timestamp
        var writer = TemporalText.TimestampWriter(withZone: true)
        var out: [UInt8] = []
        writer.append(1_710_054_000_500_000, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-03-10 07:00:00.5+00")
        var plain = TemporalText.TimestampWriter(withZone: false)
        out = []
        plain.append(-63_517_780_800_000_000, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "0044-03-15 12:00:00 BC")
    }

    // A version 1 file made from the system's New York file (its first header and 32-bit block,
    // with the version byte zeroed) agrees with the full file over the 32-bit range.
    @Test func versionOneDataReadsLikeTheFullFile() throws {
        let full = try zone("America/New_York")
        var bytes = try Self.fileBytes("/usr/share/zoneinfo/America/New_York")
        func count(at offset: Int) -> Int {
            bytes[offset ..< offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        let length = 44 + count(at: 32) * 5 + count(at: 36) * 6 + count(at: 40) + count(at: 28) * 8 + count(at: 24) + count(at: 20)
        bytes = Array(bytes[0 ..< length])
        bytes[4] = 0
        let versionOne = try TimeZoneRules(tzif: bytes, name: "v1")
        for seconds in stride(from: Int64(-2_147_483_000), to: 2_147_483_000, by: 86_400 * 7 + 3_607) {
            #expect(versionOne.offset(atUTC: seconds * 1_000_000) == full.offset(atUTC: seconds * 1_000_000))
        }
    }

    @Test func truncatedDataIsReportedAsCorrupt() {
        #expect(throws: SluiceError(.dataCorrupted, "invalid TZif data: no TZif header")) {
            try TimeZoneRules(tzif: Array("TZif2".utf8), name: "broken")
        }
    }

    @Test func anEmptyDirectoryKnowsOnlyPOSIXStrings() throws {
        let empty = TimeZoneDatabase(directory: "/nonexistent-tzdir")
        #expect(throws: SluiceError.self) { try empty.rules(named: "America/New_York") }
        #expect(try empty.rules(named: "UTC+3").offset(atUTC: 0) == type(-10800, false, "UTC"))
    }

    static func fileBytes(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw SluiceError(.ioError, "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[0 ..< count]
        }
        return bytes
    }
}
