import SluiceCore
import SluicePGWire
import SluiceSQL

/// The parser's fuzz entry point.
enum SQLFuzzEntry {
    static func run(_ bytes: [UInt8]) { SQLFuzz.run(bytes) }
}

/// The wire decoder and connection state machine's fuzz entry point.
enum WireFuzzEntry {
    static func run(_ bytes: [UInt8]) { PGWireFuzz.run(bytes) }
}

/// Client byte streams: a startup message and a sequence of protocol messages, then mutated.
enum WireInputs {
    static func make(random: inout SplitMix64, sqlSeeds: [String]) -> [UInt8] {
        var stream: [UInt8] = []
        if random.next(below: 8) != 0 {
            stream += startup(["user": "root", "database": "dev", "application_name": "fuzz"])
        }
        for _ in 0 ..< 1 + random.next(below: 6) {
            var sql = sqlSeeds[random.next(below: sqlSeeds.count)]
            // The fake backend answers statements naming copyin/copyout with a COPY.
            if random.next(below: 4) == 0 { sql = ["copyin", "copyout", "copyout leak", "copyin; copyout"][random.next(below: 4)] }
            switch random.next(below: 11) {
            case 0: stream += message("Q", cString(sql))
            case 1: stream += message("P", cString("s\(random.next(below: 3))") + cString(sql) + int16(1) + int32(23))
            case 2:
                stream += message("B", cString("") + cString("s\(random.next(below: 3))") + int16(1) + int16(random.next(below: 2) == 0 ? 0 : 1)
                    + int16(1) + int32(4) + int32(Int32(truncatingIfNeeded: random.next())) + int16(1) + int16(1))
            case 3: stream += message("D", [UInt8(ascii: random.next(below: 2) == 0 ? "S" : "P")] + cString(""))
            case 4: stream += message("E", cString("") + int32(Int32(random.next(below: 5))))
            case 5: stream += message("S", [])
            case 6: stream += message("C", [UInt8(ascii: "S")] + cString("s0"))
            case 7: stream += message("d", Array(sql.utf8.prefix(random.next(below: 12))) + (random.next(below: 4) == 0 ? [UInt8(ascii: "!")] : []))
            case 8: stream += message("c", [])
            case 9: stream += message("f", cString("gave up"))
            default: stream += (0 ..< random.next(below: 32)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
        }
        if random.next(below: 2) == 0 {
            stream = Mutator.mutate(stream, seeds: sqlSeeds, random: &random)
        }
        return stream
    }

    static func startup(_ parameters: [String: String]) -> [UInt8] {
        var body = int32(196_608)
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) { body += cString(key) + cString(value) }
        body.append(0)
        return int32(Int32(body.count + 4)) + body
    }

    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue!] + int32(Int32(body.count + 4)) + body
    }

    static func cString(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }
    static func int16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: Int16(truncatingIfNeeded: value).bigEndian) { Array($0) } }
    static func int16(_ value: Int16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
}
