import Foundation
import SluiceBatch
import SluiceCore
import Testing

@Suite struct ChunkStagingTests {
    private static func chunk(_ start: Int) -> Chunk {
        Chunk(columns: [Column(type: .int64, storage: .int64((start ..< start + 1000).map(Int64.init)))])
    }

    /// Chunks held in memory count as the statement's staging until they move to the spill
    /// file or are dropped; the rows come back in order either way.
    @Test func heldChunksAreCountedUntilTheyMoveToDisk() throws {
        let staging = ChunkStaging(types: [.int64], spillDirectory: NSTemporaryDirectory())
        for index in 0 ..< 3 { try staging.append(Self.chunk(index * 1000)) }
        #expect(staging.isInMemory)
        #expect(staging.heldBytes == 3 * Self.chunk(0).byteCount)
        for index in 3 ..< ChunkStaging.chunksInMemory + 1 { try staging.append(Self.chunk(index * 1000)) }
        #expect(!staging.isInMemory)
        #expect(staging.heldBytes == 0)
        var values: [Int64] = []
        let stream = try staging.chunks()
        while let chunk = try stream.next() {
            guard case .int64(let part) = chunk.columns[0].storage else { break }
            values += part
        }
        #expect(values == (0 ..< (ChunkStaging.chunksInMemory + 1) * 1000).map(Int64.init))

        // Wide rows move to disk by their bytes, before the chunks are many.
        let wide = ChunkStaging(types: [.varchar], spillDirectory: NSTemporaryDirectory())
        let text = String(repeating: "x", count: 1 << 20)
        try wide.append(Chunk(columns: [Column(type: .varchar, values: Array(repeating: .string(text), count: 10))]))
        #expect(wide.isInMemory)
        try wide.append(Chunk(columns: [Column(type: .varchar, values: Array(repeating: .string(text), count: 10))]))
        #expect(!wide.isInMemory)
        #expect(wide.heldBytes == 0)

        let dropped = ChunkStaging(types: [.int64], spillDirectory: NSTemporaryDirectory())
        try dropped.append(Self.chunk(0))
        #expect(dropped.heldBytes > 0)
        dropped.discard()
        #expect(dropped.heldBytes == 0)
    }
}
