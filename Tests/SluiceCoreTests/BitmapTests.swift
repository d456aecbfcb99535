import Testing

@testable import SluiceCore

@Suite struct BitmapTests {
    @Test func notFlipsEveryBitAndLeavesTheTailClear() {
        for count in [0, 1, 63, 64, 65, 130] {
            var bitmap = Bitmap(count: count, value: false)
            for index in stride(from: 0, to: count, by: 3) { bitmap[index] = true }
            let flipped = ~bitmap
            #expect(flipped.count == count)
            #expect((0 ..< count).allSatisfy { flipped[$0] == !bitmap[$0] })
            #expect(flipped.setCount == count - bitmap.setCount)
        }
    }
}
