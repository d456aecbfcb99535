import SluiceCore
import Testing

@testable import SluiceState

func key(_ value: Int64) -> [UInt8] { encoded(.int64(value), .int64) }

@Suite struct StateTableTests {
    @Test func readsSeeTheEpochsWritesBeforeAndAfterCommit() {
        let table = StateTable(id: 7)
        table.put(key(2), [.string("b")])
        table.put(key(1), [.string("a")])
        #expect(table.get(key(1)) == [.string("a")])
        #expect(table.count == 2)
        let delta = table.commitEpoch(1)
        #expect(delta.tableID == 7 && delta.epoch == 1)
        #expect(delta.puts.map(\.key) == [key(1), key(2)])
        #expect(delta.deletes.isEmpty)
        table.delete(key(1))
        table.put(key(2), [.string("B")])
        #expect(table.get(key(1)) == nil)
        #expect(table.count == 1)
        let second = table.commitEpoch(2)
        #expect(second.deletes == [key(1)])
        #expect(second.puts.map(\.row) == [[.string("B")]])
        #expect(table.scan().map(\.row) == [[.string("B")]])
    }

    @Test func deletingAKeyWrittenInTheSameEpochLeavesNoTrace() {
        let table = StateTable(id: 1)
        table.put(key(5), [.int64(5)])
        table.delete(key(5))
        let delta = table.commitEpoch(1)
        #expect(delta.puts.isEmpty && delta.deletes.isEmpty)
        #expect(table.count == 0)
    }

    @Test func discardedEpochsChangeNothing() {
        let table = StateTable(id: 1)
        table.put(key(1), [.int64(1)])
        table.commitEpoch(1)
        table.delete(key(1))
        table.put(key(2), [.int64(2)])
        table.discardEpoch()
        #expect(table.scan().map(\.key) == [key(1)])
    }

    /// min and max stay right when the current extreme is deleted: they are the ends of an
    /// ordered scan, checked here against a plain sorted array over a seeded history.
    @Test func orderedScansMatchASortedModelThroughRandomEpochs() {
        var random = SeededRandom(seed: 42)
        let table = StateTable(id: 1)
        var model: [Int64: Int64] = [:]
        for epoch in 1 ... 200 {
            for _ in 0 ..< Int(random.next() % 20) {
                let k = Int64(random.next() % 100) - 50
                if random.next() % 3 == 0 {
                    table.delete(key(k))
                    model[k] = nil
                } else {
                    let v = Int64(bitPattern: random.next() % 1000)
                    table.put(key(k), [.int64(v)])
                    model[k] = v
                }
            }
            // Checked inside the epoch (overlay) and after committing it.
            for phase in 0 ..< 2 {
                let expected = model.keys.sorted()
                #expect(table.scan().map(\.key) == expected.map(key))
                #expect(table.count == expected.count)
                #expect(table.first()?.key == expected.first.map(key))
                #expect(table.last()?.key == expected.last.map(key))
                let inRange = expected.filter { $0 >= -10 && $0 < 10 }
                #expect(table.scan(from: key(-10), to: key(10)).map(\.key) == inRange.map(key))
                if phase == 0 { table.commitEpoch(UInt64(epoch)) }
            }
        }
    }
}

/// A plain model of a state table: a dictionary, sorted on every read.
private struct ReferenceTable {
    var committed: [[UInt8]: [Value]] = [:]
    var current: [[UInt8]: [Value]] = [:]

    var sorted: [(key: [UInt8], row: [Value])] {
        current.sorted { ByteOrder.compare($0.key, $1.key) < 0 }.map { ($0.key, $0.value) }
    }

    func inRange(_ key: [UInt8], _ lower: [UInt8]?, _ upper: [UInt8]?) -> Bool {
        if let lower, ByteOrder.compare(key, lower) < 0 { return false }
        if let upper, ByteOrder.compare(key, upper) >= 0 { return false }
        return true
    }

    /// The delta committing the epoch must produce: puts of every key written this epoch that
    /// has a row, deletes of every key that had one at the start and has none now.
    func expectedDelta(written: Set<[UInt8]>) -> (puts: [[UInt8]], deletes: [[UInt8]]) {
        let keys = written.sorted { ByteOrder.compare($0, $1) < 0 }
        return (keys.filter { current[$0] != nil }, keys.filter { current[$0] == nil && committed[$0] != nil })
    }
}

@Suite struct StateTableRandomizedTests {
    /// Thousands of puts and deletes over enough keys to split and merge blocks many times,
    /// cut into epochs of which some are discarded; every read is checked against the model
    /// inside the epoch, and every commit's delta too.
    @Test func matchesAReferenceModelThroughCommitsAndDiscards() {
        var random = SeededRandom(seed: 2024)
        let table = StateTable(id: 3)
        var model = ReferenceTable()
        var mostBlocks = 0
        func randomKey() -> [UInt8] { key(Int64(random.next(below: 4_000)) - 2_000) }
        for epoch in 1 ... 40 {
            var written = Set<[UInt8]>()
            // Epochs alternate between growing and shrinking, so blocks split and then merge.
            let deleteShare = epoch % 4 < 2 ? 4 : 1
            for _ in 0 ..< random.next(below: 2_000) {
                let k = randomKey()
                if random.next(below: 5) < deleteShare {
                    table.delete(k)
                    model.current[k] = nil
                } else {
                    let row: [Value] = [.int64(Int64(random.next(below: 1_000)))]
                    table.put(k, row)
                    model.current[k] = row
                }
                written.insert(k)
                if random.next(below: 500) == 0 { checkReads(table, model, &random) }
            }
            checkReads(table, model, &random)
            let blocks = table.blockSizes
            #expect(blocks.isWellFormed, "epoch \(epoch)")
            mostBlocks = max(mostBlocks, blocks.sizes.count)
            if random.next(below: 5) == 0 {
                table.discardEpoch()
                model.current = model.committed
                checkReads(table, model, &random)
                continue
            }
            let expected = model.expectedDelta(written: written)
            let delta = table.commitEpoch(UInt64(epoch))
            #expect(delta.epoch == UInt64(epoch) && delta.tableID == 3)
            #expect(delta.puts.map(\.key) == expected.puts, "epoch \(epoch)")
            #expect(delta.puts.allSatisfy { model.current[$0.key] == $0.row })
            #expect(delta.deletes == expected.deletes, "epoch \(epoch)")
            model.committed = model.current
            checkReads(table, model, &random)
        }
        // The history did split blocks (and so, shrinking again, merged them).
        #expect(mostBlocks > 3)
    }

    /// Keys of varied length over the bytes next to the ends of the range (0x00, 0x01, 0xFE,
    /// 0xFF), so prefix bounds have to carry and to give up.
    @Test func prefixReadsMatchAReferenceModel() {
        var random = SeededRandom(seed: 99)
        let alphabet: [UInt8] = [0x00, 0x01, 0x7F, 0xFE, 0xFF]
        func randomBytes() -> [UInt8] { (0 ..< random.next(below: 5)).map { _ in alphabet[random.next(below: alphabet.count)] } }
        let table = StateTable(id: 1)
        var model = ReferenceTable()
        for epoch in 1 ... 10 {
            for _ in 0 ..< 300 {
                let k = randomBytes()
                if random.next(below: 3) == 0 {
                    table.delete(k)
                    model.current[k] = nil
                } else {
                    table.put(k, [.int64(Int64(k.count))])
                    model.current[k] = [.int64(Int64(k.count))]
                }
            }
            for _ in 0 ..< 50 {
                let prefix = randomBytes()
                let expected = model.sorted.filter { $0.key.starts(with: prefix) }.map(\.key)
                #expect(table.scan(withPrefix: prefix).map(\.key) == expected, "prefix \(prefix)")
                #expect(table.first(withPrefix: prefix)?.key == expected.first)
                #expect(table.last(withPrefix: prefix)?.key == expected.last)
            }
            table.commitEpoch(UInt64(epoch))
        }
    }

    @Test func prefixUpperBoundsCarryPastTrailingFFBytes() {
        #expect(StateTable.upperBound(ofPrefix: [0x01, 0x02]) == [0x01, 0x03])
        #expect(StateTable.upperBound(ofPrefix: [0x01, 0xFF, 0xFF]) == [0x02])
        #expect(StateTable.upperBound(ofPrefix: [0xFF]) == nil)
        #expect(StateTable.upperBound(ofPrefix: []) == nil)
    }

    @Test func minimumAndMaximumFollowDeletesOfTheExtremes() {
        let table = StateTable(id: 1)
        for value in Int64(0) ..< 2_000 { table.put(key(value), [.int64(value)]) }
        table.commitEpoch(1)
        for value in Int64(0) ..< 1_000 {
            table.delete(key(value))
            table.delete(key(1_999 - value))
            #expect(table.first()?.row == (value < 999 ? [.int64(value + 1)] : nil))
            #expect(table.last()?.row == (value < 999 ? [.int64(1_998 - value)] : nil))
        }
        #expect(table.count == 0)
        table.discardEpoch()
        #expect(table.count == 2_000)
        #expect(table.first()?.row == [.int64(0)] && table.last()?.row == [.int64(1_999)])
    }

    private func checkReads(_ table: StateTable, _ model: ReferenceTable, _ random: inout SeededRandom) {
        let sorted = model.sorted
        #expect(table.count == sorted.count)
        let scanned = table.scan()
        #expect(scanned.map(\.key) == sorted.map(\.key))
        #expect(scanned.map(\.row) == sorted.map(\.row))
        #expect(table.first()?.key == sorted.first?.key)
        #expect(table.last()?.key == sorted.last?.key)
        for _ in 0 ..< 20 {
            let lower: [UInt8]? = random.next(below: 4) == 0 ? nil : key(Int64(random.next(below: 4_400)) - 2_200)
            let upper: [UInt8]? = random.next(below: 4) == 0 ? nil : key(Int64(random.next(below: 4_400)) - 2_200)
            let expected = sorted.filter { model.inRange($0.key, lower, upper) }.map(\.key)
            #expect(table.scan(from: lower, to: upper).map(\.key) == expected)
            #expect(table.first(from: lower, to: upper)?.key == expected.first)
            #expect(table.last(from: lower, to: upper)?.key == expected.last)
            let probe = key(Int64(random.next(below: 4_400)) - 2_200)
            #expect(table.get(probe) == model.current[probe])
        }
    }
}
