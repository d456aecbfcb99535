import Testing

@testable import SluiceCore

/// The branch-free count of insertions agrees with ``ChangeOp/isInsertion`` op by op.
@Suite struct ChangeOpTests {
    @Test func insertionsCountsTheOpsThatAddRows() {
        let all: [ChangeOp] = [.insert, .delete, .updateDelete, .updateInsert]
        #expect(all.map(\.isInsertion) == [true, false, false, true])
        var random = SplitMix64(seed: 3)
        for length in [0, 1, 7, 64, 1000, 1027] {
            let ops = (0 ..< length).map { _ in all[Int(random.next() % 4)] }
            #expect(ChangeOp.insertions(in: ops) == ops.filter(\.isInsertion).count)
        }
        #expect(ChangeOp.insertions(in: Array(repeating: .updateInsert, count: 300)) == 300)
        #expect(ChangeOp.insertions(in: Array(repeating: .updateDelete, count: 300)) == 0)
    }
}
