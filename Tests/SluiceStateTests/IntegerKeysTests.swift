import SluiceCore
import Testing

@testable import SluiceState

/// A primary key of one integer column is encoded on a quicker path: the same bytes, key for
/// key, as the general encoding (the vnode, then the memcomparable value), for every integer
/// layout and type that takes it, the extremes and zero included.
@Suite struct IntegerKeysTests {
    @Test(arguments: [DataType.int64, .timestamptz, .timestamp, .time, .int32, .date])
    func integerKeysAreTheGeneralEncoding(type: DataType) {
        var random = SplitMix64(seed: 17)
        let is64 = type != .int32 && type != .date
        var values64: [Int64] = [.min, .max, 0, -1, 1]
        for _ in 0 ..< 2000 { values64.append(Int64(bitPattern: random.next()) >> Int64(random.next(below: 64))) }
        var builder = ColumnBuilder(type: type)
        for value in values64 {
            if is64 { builder.append(int64: value) } else { builder.append(int32: Int32(truncatingIfNeeded: value)) }
        }
        let column = builder.finish()
        guard let fast = TableStore.integerKeys(of: column) else {
            Issue.record("no quick path for \(type)")
            return
        }
        var general = KeyBuffer()
        for row in 0 ..< column.count {
            general.appendKey { bytes in VirtualNode.appendKey(to: &bytes) { MemcomparableEncoding.append(column, row: row, to: &$0) } }
        }
        #expect(fast.count == general.count)
        #expect((0 ..< general.count).allSatisfy { fast.key($0) == general.key($0) })
    }

    @Test func otherColumnsTakeTheGeneralPath() {
        #expect(TableStore.integerKeys(of: Column(type: .int64, values: [.int64(1), .null])) == nil)
        #expect(TableStore.integerKeys(of: Column(type: .varchar, values: [.string("a")])) == nil)
        #expect(TableStore.integerKeys(of: Column(type: .int16, values: [.int16(1)])) == nil)
    }
}
