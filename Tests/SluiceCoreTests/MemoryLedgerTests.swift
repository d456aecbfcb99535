import SluiceCore
import Testing

@Suite struct MemoryLedgerTests {
    /// Shares move their owner's total by what they set and add, and give back what they hold
    /// when they go; other owners are untouched.
    @Test func sharesMoveTheirOwnersTotal() {
        let ledger = MemoryLedger()
        var share: MemoryShare? = MemoryShare(.tableWrites, ledger: ledger)
        let other = MemoryShare(.tableWrites, ledger: ledger)
        share?.set(1000)
        other.add(24)
        #expect(ledger.bytes(of: .tableWrites) == 1024)
        share?.set(400)
        share?.add(-100)
        #expect(share?.bytes == 300)
        #expect(ledger.bytes(of: .tableWrites) == 324)
        #expect(ledger.bytes(of: .sinkBuffers) == 0)
        share = nil
        #expect(ledger.bytes(of: .tableWrites) == 24)
        #expect(MemoryOwner.allCases.map(\.name) == [
            "statement staging", "table writes", "source buffers", "sink buffers", "broker indexes",
        ])
    }
}
