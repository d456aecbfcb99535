extension KeyBuffer {
    /// Whether every key is after the one before it.
    var isStrictlyAscending: Bool {
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                var previousStart = 0
                for index in ends.indices.dropFirst() {
                    let start = Int(ends[index - 1])
                    let order = Self.compare(
                        bytes.baseAddress.map { $0 + previousStart }, start - previousStart, bytes.baseAddress.map { $0 + start },
                        Int(ends[index]) - start)
                    if order >= 0 { return false }
                    previousStart = start
                }
                return true
            }
        }
    }

    /// The keys' order when every key is strictly after the one before it among those with the
    /// same first two bytes (the same vnode: a table's keys that arrive ascending, each vnode's
    /// in turn): a stable counting sort by those two bytes, with no comparison sort; nil when
    /// they are not so (or a key is shorter than two bytes). All the keys then differ.
    /// - Complexity: O(n) comparisons of each key with the previous one of its vnode.
    func orderIfAscendingPerVnode() -> [Int32]? {
        let count = ends.count
        guard count > 1 else { return nil }
        var last = [Int32](repeating: -1, count: 1 << 16)
        var counts = [Int32](repeating: 0, count: (1 << 16) + 1)
        let ascending = bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                last.withUnsafeMutableBufferPointer { last in
                    counts.withUnsafeMutableBufferPointer { counts in
                        guard let base = bytes.baseAddress else { return false }
                        var start = 0
                        for index in 0 ..< count {
                            let end = Int(ends[index])
                            guard end - start >= 2 else { return false }
                            let group = Int(base[start]) << 8 | Int(base[start + 1])
                            let previous = Int(last[group])
                            if previous >= 0 {
                                let previousStart = previous == 0 ? 0 : Int(ends[previous - 1])
                                let order = Self.compare(base + previousStart, Int(ends[previous]) - previousStart, base + start, end - start)
                                guard order < 0 else { return false }
                            }
                            last[group] = Int32(index)
                            counts[group + 1] += 1
                            start = end
                        }
                        return true
                    }
                }
            }
        }
        guard ascending else { return nil }
        for group in 1 ..< counts.count { counts[group] += counts[group - 1] }
        var order = [Int32](repeating: 0, count: count)
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                order.withUnsafeMutableBufferPointer { order in
                    counts.withUnsafeMutableBufferPointer { next in
                        let base = bytes.baseAddress!
                        var start = 0
                        for index in 0 ..< count {
                            let group = Int(base[start]) << 8 | Int(base[start + 1])
                            order[Int(next[group])] = Int32(index)
                            next[group] += 1
                            start = Int(ends[index])
                        }
                    }
                }
            }
        }
        return order
    }

    /// In ascending keys, the number of keys before `key` (or, `orEqual`, not after it): a
    /// binary search that reads the buffers through raw pointers, one retain each rather than
    /// one per comparison.
    func count(before key: [UInt8], orEqual: Bool) -> Int {
        key.withUnsafeBufferPointer { key in
            bytes.withUnsafeBufferPointer { bytes in
                ends.withUnsafeBufferPointer { ends in
                    var low = 0
                    var high = ends.count
                    while low < high {
                        let middle = (low + high) / 2
                        let start = middle == 0 ? 0 : Int(ends[middle - 1])
                        let order = Self.compare(bytes.baseAddress.map { $0 + start }, Int(ends[middle]) - start, key.baseAddress, key.count)
                        if order < 0 || (orEqual && order == 0) { low = middle + 1 } else { high = middle }
                    }
                    return low
                }
            }
        }
    }

    /// The keys `order` names, in that order (each key at most once), in a new buffer.
    ///
    /// One pass through raw pointers into a buffer allocated once: short keys are copied a byte
    /// at a time with no call, so the reads of keys at random positions overlap; appending them
    /// one at a time cost a call, a uniqueness check and a `memmove` each, and was a sixth of a
    /// busy view's time.
    package func gathered(_ order: [Int32]) -> KeyBuffer {
        var newEnds = [Int32](repeating: 0, count: order.count)
        var written = 0
        let newBytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { output, initialized in
            bytes.withUnsafeBufferPointer { source in
                ends.withUnsafeBufferPointer { ends in
                    newEnds.withUnsafeMutableBufferPointer { newEnds in
                        guard let from = source.baseAddress, let to = output.baseAddress else { return }
                        for (position, key) in order.enumerated() {
                            let index = Int(key)
                            let start = index == 0 ? 0 : Int(ends[index - 1])
                            let length = Int(ends[index]) - start
                            precondition(written + length <= output.count, "a key gathered twice")
                            if length <= 16 {
                                for offset in 0 ..< length { to[written + offset] = from[start + offset] }
                            } else {
                                (to + written).update(from: from + start, count: length)
                            }
                            written += length
                            newEnds[position] = Int32(written)
                        }
                    }
                }
            }
            initialized = written
        }
        return KeyBuffer(bytes: newBytes, ends: newEnds)
    }

    /// The indexes of the keys in ascending key order; equal keys keep their order.
    ///
    /// A least-significant-digit radix sort of each key's first eight bytes (a pass per byte,
    /// skipped where every key has the same byte), which keeps equal prefixes in index order;
    /// then each run of equal prefixes is ordered by its whole keys (``sortRun(_:_:depth:)``:
    /// the next eight bytes the same way for a long run). An epoch's keys (a view's vnode and
    /// group key, say) mostly differ within eight bytes, so nearly all of the work is the linear
    /// passes: a comparison sort of a million keys took four times as long.
    /// - Complexity: O(n · w) for n keys that differ within their first 8 · w bytes, plus a
    ///   comparison sort of each run of at most 16 keys that tie there.
    package func sortedOrder() -> [Int32] {
        let sorted = sortedByPrefix()
        var items = sorted.items
        var runStart = 0
        while runStart < items.count {
            let runEnd = sorted.endOfRun(from: runStart)
            if runEnd - runStart > 1 { sortRun(&items, runStart ..< runEnd, depth: 8) }
            runStart = runEnd
        }
        return items.map { Int32(truncatingIfNeeded: $0 >> 32) }
    }

    /// Orders `items[range]` (a key's index in each item's high half), whose keys agree in
    /// their first `depth` bytes as zero-padded words, by whole key and then by item.
    ///
    /// A long run (keys that share a long head: a group's entries under the group's key, the
    /// keys of one vnode that begin alike) is radix-sorted by its next eight bytes like the
    /// first eight, and each run still tied goes on to the eight after; short runs, and runs
    /// of keys that all end within `depth` bytes (which tie as words but may differ in
    /// length), are sorted by comparing whole keys.
    func sortRun(_ items: inout [UInt64], _ range: Range<Int>, depth: Int) {
        let count = range.count
        guard count > 1 else { return }
        var words = [UInt64](repeating: 0, count: count)
        let longer = bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                var longer = false
                for position in 0 ..< count {
                    let index = Int(items[range.lowerBound + position] >> 32)
                    let start = (index == 0 ? 0 : Int(ends[index - 1])) + depth
                    let end = Int(ends[index])
                    if end > start { longer = true }
                    words[position] = Self.word(bytes, from: start, to: end)
                }
                return longer
            }
        }
        if count <= 16 || !longer {
            items[range].sort { left, right in
                let result = compare(Int(left >> 32), with: Int(right >> 32), of: self)
                return result < 0 || (result == 0 && left < right)
            }
            return
        }
        // Keys that came in ascending order (serial ids within a vnode) are in order already:
        // the radix sort is stable, so it would leave them as they are.
        var isInOrder = true
        for position in 1 ..< count where words[position] < words[position - 1] {
            isInOrder = false
            break
        }
        if !isInOrder {
            var runItems = Array(items[range])
            Self.radixSort(&words, carrying: &runItems)
            items.replaceSubrange(range, with: runItems)
        }
        var start = 0
        while start < count {
            var end = start + 1
            while end < count && words[end] == words[start] { end += 1 }
            if end - start > 1 { sortRun(&items, range.lowerBound + start ..< range.lowerBound + end, depth: depth + 8) }
            start = end
        }
    }

    /// Keys sorted by their first eight bytes alone, as a big-endian word zero padded: per
    /// position the key's word (`prefixes`) and `items`, the key's index in the high half and
    /// `payload[index]` (0 without one) in the low, carried along so that reading it needs no
    /// access at random. Equal words keep index order; runs of them still need their whole keys
    /// compared.
    struct PrefixSorted {
        var prefixes: [UInt64]
        var items: [UInt64]

        /// The end of the run of equal words that starts at `start`.
        func endOfRun(from start: Int) -> Int {
            var end = start + 1
            while end < prefixes.count && prefixes[end] == prefixes[start] { end += 1 }
            return end
        }
    }

    func sortedByPrefix(carrying payload: [Int32] = []) -> PrefixSorted {
        let count = self.count
        precondition(payload.isEmpty || payload.count == count, "one payload per key")
        var prefixes = [UInt64](repeating: 0, count: count)
        var items = [UInt64](repeating: 0, count: count)
        bytes.withUnsafeBufferPointer { bytes in
            ends.withUnsafeBufferPointer { ends in
                for index in 0 ..< count {
                    let start = index == 0 ? 0 : Int(ends[index - 1])
                    let end = Int(ends[index])
                    prefixes[index] = Self.word(bytes, from: start, to: end)
                    items[index] = UInt64(index) << 32 | UInt64(UInt32(bitPattern: payload.isEmpty ? 0 : payload[index]))
                }
            }
        }
        if count > 1 { Self.radixSort(&prefixes, carrying: &items) }
        return PrefixSorted(prefixes: prefixes, items: items)
    }

    /// The eight bytes of `bytes` from `start` as a big-endian word, zero padded past `end`.
    @inline(__always)
    private static func word(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> UInt64 {
        if end - start >= 8 { return UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress! + start).loadUnaligned(as: UInt64.self)) }
        var word: UInt64 = 0
        for offset in 0 ..< 8 { word = word << 8 | UInt64(start + offset < end ? bytes[start + offset] : 0) }
        return word
    }

    /// Sorts `words` ascending, stably, with `items` carried along: eight least-significant-
    /// digit passes of a byte each, a pass skipped where every word has the same byte.
    private static func radixSort(_ words: inout [UInt64], carrying items: inout [UInt64]) {
        let count = words.count
        var otherWords = [UInt64](repeating: 0, count: count)
        var otherItems = [UInt64](repeating: 0, count: count)
        var counts = [Int](repeating: 0, count: 256)
        for shift in stride(from: 0, to: 64, by: 8) {
            let moved = words.withUnsafeBufferPointer { words in
                items.withUnsafeBufferPointer { items in
                    otherWords.withUnsafeMutableBufferPointer { otherWords in
                        otherItems.withUnsafeMutableBufferPointer { otherItems in
                            counts.withUnsafeMutableBufferPointer { counts in
                                radixPass(shift: UInt64(shift), words, items, into: otherWords, otherItems, counts: counts)
                            }
                        }
                    }
                }
            }
            if moved {
                swap(&words, &otherWords)
                swap(&items, &otherItems)
            }
        }
    }

    /// One stable counting-sort pass over the byte at `shift`; false (nothing written) when
    /// every prefix has the same byte there.
    private static func radixPass(
        shift: UInt64, _ prefixes: UnsafeBufferPointer<UInt64>, _ items: UnsafeBufferPointer<UInt64>,
        into outPrefixes: UnsafeMutableBufferPointer<UInt64>, _ outItems: UnsafeMutableBufferPointer<UInt64>,
        counts: UnsafeMutableBufferPointer<Int>
    ) -> Bool {
        counts.update(repeating: 0)
        for prefix in prefixes { counts[Int(truncatingIfNeeded: (prefix >> shift) & 0xFF)] += 1 }
        if counts.contains(prefixes.count) { return false }
        var total = 0
        for digit in 0 ..< 256 {
            let digitCount = counts[digit]
            counts[digit] = total
            total += digitCount
        }
        for index in 0 ..< prefixes.count {
            let prefix = prefixes[index]
            let digit = Int(truncatingIfNeeded: (prefix >> shift) & 0xFF)
            let position = counts[digit]
            counts[digit] = position + 1
            outPrefixes[position] = prefix
            outItems[position] = items[index]
        }
        return true
    }
}
