import SluiceCore

/// Rows a statement sets aside until it has made all of them, then reads back once, in order:
/// held in memory up to ``chunksInMemory`` chunks (and ``bytesInMemory`` bytes, for wide rows),
/// then in an unlinked ``ChunkSpillFile``.
///
/// What lets a write of any size (COPY FROM, `INSERT … SELECT`, `UPDATE`, `DELETE`) first make
/// and check every row, so that a bad row changes nothing, in bounded memory: the rows wait on
/// disk, not in the heap. Not `Sendable`: one owner uses it at a time.
///
/// - Complexity: O(1) memory beyond ``chunksInMemory`` chunks (at most ``bytesInMemory``) and the
///   spill file's buffer.
package final class ChunkStaging {
    /// Chunks held in memory before the staging moves to a spill file.
    package static let chunksInMemory = 16
    /// Bytes held in memory before the staging moves to a spill file, whatever the chunks.
    package static let bytesInMemory = 16 << 20

    package let types: [DataType]
    private let directory: String
    private var held: [Chunk] = []
    private var spill: ChunkSpillFile?
    /// The held chunks' bytes, in the process's memory ledger.
    private let share = MemoryShare(.statementStaging)
    /// The rows staged so far.
    package private(set) var rowCount = 0
    /// The chunks staged so far.
    package private(set) var chunkCount = 0

    /// A staging for rows of `types`, spilling under `directory`.
    package init(types: [DataType], spillDirectory directory: String) {
        self.types = types
        self.directory = directory
    }

    /// Whether every staged row is still in memory (``heldChunks``).
    package var isInMemory: Bool { spill == nil }

    /// Bytes of the chunks held in memory (counted under ``MemoryOwner/statementStaging``).
    package var heldBytes: Int { share.bytes }

    /// The staged chunks, while ``isInMemory``.
    package var heldChunks: [Chunk] { held }

    /// Sets `chunk` aside after the others.
    package func append(_ chunk: Chunk) throws(SluiceError) {
        guard !chunk.isEmpty else { return }
        rowCount += chunk.count
        chunkCount += 1
        if spill == nil, held.count >= Self.chunksInMemory || share.bytes + chunk.byteCount > Self.bytesInMemory {
            let file = try ChunkSpillFile(in: directory, types: types)
            for staged in held { try file.append(staged) }
            held = []
            share.set(0)
            spill = file
        }
        if let spill {
            try spill.append(chunk)
        } else {
            held.append(chunk)
            share.add(chunk.byteCount)
        }
    }

    /// The staged chunks, in order. Staging ends here.
    package func chunks() throws(SluiceError) -> ChunkStream {
        guard let spill else { return ChunkStream.of(held) }
        return try spill.chunks()
    }

    /// Drops every staged row.
    package func discard() {
        held = []
        share.set(0)
        spill = nil
    }
}
