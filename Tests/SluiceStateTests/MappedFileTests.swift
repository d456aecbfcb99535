import Foundation
import SluiceCore
import SluiceState
import Testing

@Suite struct MappedFileTests {
    /// A file of several mapping windows reads whole and checks its checksum though each window
    /// is let go of once read; pages let go of read back the same bytes.
    @Test func aFileLargerThanAWindowReadsTheSameAfterItsPagesAreLetGo() throws {
        let directory = NSTemporaryDirectory() + "mapped-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let count = 2 * Files.mappedWindow + 12_345
        let bytes = (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        let path = "\(directory)/file"
        try Files.writeChecksummed(bytes, to: path)
        let sums = try Files.withMappedChecksummedFile(path) { (contents: UnsafeRawBufferPointer) throws(SluiceError) -> (Int, Int) in
            let before = contents.reduce(0) { $0 &+ Int($1) }
            Files.dropMappedPages(contents, 0 ..< contents.count)
            let after = contents.reduce(0) { $0 &+ Int($1) }
            return (before, after)
        }
        #expect(sums.0 == bytes.reduce(0) { $0 &+ Int($1) })
        #expect(sums.1 == sums.0)

        var damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        damaged[Files.mappedWindow + 7] ^= 0x40
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(throws: SluiceError.self) {
            try Files.withMappedChecksummedFile(path) { (_: UnsafeRawBufferPointer) throws(SluiceError) in }
        }
    }
}
