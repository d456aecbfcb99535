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
