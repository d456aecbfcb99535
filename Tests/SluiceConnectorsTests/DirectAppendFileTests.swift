import Foundation
import Testing

@testable import SluiceConnectors

/// A file sink's staging file written with direct I/O holds exactly the bytes appended, across
/// partial blocks, syncs, reopening after a cut (a restart), and buffers filled past their size.
@Suite struct DirectAppendFileTests {
    @Test func appendsSyncsAndReopensWithTheBytesAppended() throws {
        // Under the package's build folder: the file system the sink's data folder is on.
        let folder = FileManager.default.currentDirectoryPath + "/.build/direct-append-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/file.inprogress"
        let scratch = DirectWriteScratch()
        guard let file = try DirectAppendFile.open(path: path, creating: true, scratch: scratch) else {
            // A file system without direct I/O: the sink writes through the page cache instead.
            let left = FileManager.default.contents(atPath: path) ?? Data()
            #expect(left.isEmpty)
            return
        }
        var random = SystemRandomNumberGenerator()
        func bytes(_ count: Int) -> [UInt8] { (0 ..< count).map { _ in UInt8.random(in: 0 ... 255, using: &random) } }
        /// The file holds exactly `expected`.
        func expectContents(_ expected: [UInt8]) throws {
            let written = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(written == expected)
        }
        var expected: [UInt8] = []
        for size in [100, 5000, DirectWriteScratch.size + 123, 4096 - 100 - 5000 % 4096, 3 * DirectWriteScratch.size] {
            let piece = bytes(size)
            try file.append(piece)
            expected += piece
        }
        try file.sync()
        #expect(file.length == expected.count)
        try expectContents(expected)
        // A sync, then more: the partial block is written again, whole.
        let more = bytes(10)
        try file.append(more)
        expected += more
        try file.sync()
        try expectContents(expected)
        file.close()

        // A restart cuts the file back to a checkpoint's length and goes on from there.
        let kept = expected.count - 7000
        #expect(truncate(path, off_t(kept)) == 0)
        expected.removeLast(expected.count - kept)
        let reopened = try #require(try DirectAppendFile.open(path: path, creating: false, scratch: scratch))
        #expect(reopened.length == kept)
        let after = bytes(9000)
        try reopened.append(after)
        expected += after
        try reopened.sync()
        try expectContents(expected)
        reopened.close()
    }
}
