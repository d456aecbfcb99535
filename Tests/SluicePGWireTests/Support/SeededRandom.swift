import SluiceCore
/// The project's seeded generator, under the name these tests use.
typealias SeededRandom = SplitMix64

enum Mutator {
    /// A valid client transcript exercising most message kinds.
    static let transcript: [UInt8] = {
        typealias B = FrontendBytes
        return B.sslRequest + B.startup([("user", "root"), ("database", "dev")]) + B.password("pw")
            + B.query("select 1; select 2") + B.parse("s1", "select $1", oids: [23])
            + B.describe("S", "s1") + B.bind(portal: "p", statement: "s1", parameterFormats: [1], parameters: [[0, 0, 0, 1]], resultFormats: [0])
            + B.execute("p", maxRows: 1) + B.execute("p") + B.close("P", "p") + B.close("S", "s1") + B.flush + B.sync
            + B.query("fail") + B.terminate
    }()

    /// `bytes` with a few random edits: flipped bits, replaced, inserted or deleted bytes, truncation.
    static func mutate(_ bytes: [UInt8], using random: inout SeededRandom) -> [UInt8] {
        var result = bytes
        for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
            guard !result.isEmpty else { break }
            let index = Int.random(in: 0 ..< result.count, using: &random)
            switch Int.random(in: 0 ..< 5, using: &random) {
            case 0: result[index] ^= UInt8(1) << UInt8.random(in: 0 ..< 8, using: &random)
            case 1: result[index] = UInt8.random(in: 0 ... 255, using: &random)
            case 2: result.insert(UInt8.random(in: 0 ... 255, using: &random), at: index)
            case 3: result.remove(at: index)
            default: result = Array(result.prefix(index))
            }
        }
        return result
    }

    static func randomBytes(using random: inout SeededRandom) -> [UInt8] {
        (0 ..< Int.random(in: 0 ..< 200, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
    }
}
