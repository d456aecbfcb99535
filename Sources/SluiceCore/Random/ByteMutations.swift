/// The byte-level mutations the fuzzers share: each changes `bytes` in place with choices drawn
/// from `random`, and does nothing where it cannot apply (an empty input).
package enum ByteMutations {
    /// Overwrites one byte with a random one.
    package static func overwriteByte(_ bytes: inout [UInt8], random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
    }

    /// Removes a run of 1 to `maximum` bytes.
    package static func deleteRun(_ bytes: inout [UInt8], upTo maximum: Int, random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let start = random.next(below: bytes.count)
        bytes.removeSubrange(start ..< min(bytes.count, start + 1 + random.next(below: maximum)))
    }

    /// Inserts `token` at a random place.
    package static func insert(_ token: [UInt8], into bytes: inout [UInt8], random: inout SplitMix64) {
        bytes.insert(contentsOf: token, at: random.next(below: bytes.count + 1))
    }

    /// Copies a run of 1 to `maximum` bytes to a random place.
    package static func duplicateRun(_ bytes: inout [UInt8], upTo maximum: Int, random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let start = random.next(below: bytes.count)
        let slice = bytes[start ..< min(bytes.count, start + 1 + random.next(below: maximum))]
        bytes.insert(contentsOf: slice, at: random.next(below: bytes.count + 1))
    }

    /// Keeps a random prefix of `bytes` and appends a random suffix of `other`.
    package static func splice(_ bytes: inout [UInt8], with other: [UInt8], random: inout SplitMix64) {
        let cut = random.next(below: bytes.count + 1)
        bytes = Array(bytes[..<cut]) + other[random.next(below: other.count + 1)...]
    }

    /// Cuts `bytes` to a random shorter prefix.
    package static func truncate(_ bytes: inout [UInt8], random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        bytes = Array(bytes.prefix(random.next(below: bytes.count)))
    }
}
