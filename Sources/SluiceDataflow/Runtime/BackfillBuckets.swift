import SluiceCore
import SluiceState

/// One backfill input's rows put in the order of their vnodes in the state of the operator they
/// go to (``StreamOperator/backfillVnodes(from:)``), so that the backfill's epochs each read and
/// rewrite a range of that state instead of pages all over it (a bulk index build's sort, with
/// the vnode as the key).
///
/// Rows gather in a run of about `runBytes`; a full run is cut by vnode into pieces, each
/// written to a spill file. At the end the pieces come back vnode by vnode, each vnode's run by
/// run, so what is held at once is a run and a piece.
///
/// State: the run in memory; the pieces' places in the spill file.
/// - Complexity: O(rows) to cut the runs and read the pieces back, plus one write and one read
///   of every row.
final class BackfillBuckets {
    private let runBytes: Int
    private let spillDirectory: String
    private var types: [DataType]?
    private var run: [Chunk] = []
    private var runVnodes: [[UInt16]] = []
    private var runSize = 0
    private var file: SpillFile?
    /// Each vnode's pieces in the spill file, run by run.
    private var pieces = [[SpillFile.Region]](repeating: [], count: VirtualNode.count)

    init(runBytes: Int, spillDirectory: String) {
        self.runBytes = max(runBytes, 1)
        self.spillDirectory = spillDirectory
    }

    /// Adds `chunk`'s rows, row `i` in vnode `vnodes[i]`.
    func add(_ chunk: Chunk, vnodes: [UInt16]) throws(SluiceError) {
        precondition(vnodes.count == chunk.count, "one vnode per row")
        guard chunk.count > 0 else { return }
        if types == nil { types = chunk.types }
        run.append(chunk)
        runVnodes.append(vnodes)
        runSize += chunk.byteCount
        if runSize >= runBytes { try writeRun() }
    }

    /// The rows added, vnode by vnode, a piece at a time.
    func forEachChunk(_ body: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        guard let types else { return }
        if file == nil {
            // One run in all: it is cut in memory.
            for piece in cut() { try body(piece.rows) }
            return
        }
        try writeRun()
        guard let file else { return }
        for vnode in pieces.indices {
            for region in pieces[vnode] {
                let bytes = try file.read(region)
                file.free(region)
                var offset = 0
                try body(try ChunkCodec.decode(bytes, offset: &offset, types: types))
            }
            pieces[vnode] = []
        }
    }

    /// The run's rows cut by vnode: each vnode's rows, in vnode order, gathered into a chunk.
    private func cut() -> [(vnode: Int, rows: Chunk)] {
        guard let types else { return [] }
        var counts = [Int](repeating: 0, count: VirtualNode.count + 1)
        for vnodes in runVnodes {
            for vnode in vnodes { counts[Int(vnode) + 1] += 1 }
        }
        for index in 1 ..< counts.count { counts[index] += counts[index - 1] }
        var next = counts
        var picks = [(source: Int32, row: Int32)](repeating: (0, 0), count: counts[VirtualNode.count])
        for (source, vnodes) in runVnodes.enumerated() {
            for (row, vnode) in vnodes.enumerated() {
                picks[next[Int(vnode)]] = (Int32(source), Int32(row))
                next[Int(vnode)] += 1
            }
        }
        var result: [(vnode: Int, rows: Chunk)] = []
        for vnode in 0 ..< VirtualNode.count where counts[vnode + 1] > counts[vnode] {
            result.append((vnode, Chunk.gather(from: run, picks: Array(picks[counts[vnode] ..< counts[vnode + 1]]), types: types)))
        }
        return result
    }

    /// Writes the run's pieces to the spill file and empties the run.
    private func writeRun() throws(SluiceError) {
        guard !run.isEmpty else { return }
        if file == nil { file = try SpillFile(directory: spillDirectory) }
        guard let file else { return }
        var bytes: [UInt8] = []
        for piece in cut() {
            bytes.removeAll(keepingCapacity: true)
            ChunkCodec.encode(piece.rows, into: &bytes)
            pieces[piece.vnode].append(try file.write(bytes))
        }
        run = []
        runVnodes = []
        runSize = 0
    }
}
