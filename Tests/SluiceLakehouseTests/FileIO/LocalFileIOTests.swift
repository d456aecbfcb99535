import Foundation
import SluiceCore
import Testing

@testable import SluiceLakehouse

@Suite struct LocalFileIOTests {
    let root: String
    let io = LocalFileIO()

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-localfileio-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Every name under the root, temporary files included.
    func allNames() -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func writeReadRangeSizeDelete() throws {
        let location = "\(root)/warehouse/db/t/data/part-0.parquet"
        let bytes = (0 ..< 10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try io.write(location, bytes)
        #expect(try io.read(location) == bytes)
        #expect(try io.read("file://\(location)") == bytes)
        #expect(try io.read("file:\(location)", range: 9_990 ..< 10_000) == Array(bytes[9_990...]))
        #expect(try io.read(location, range: 5 ..< 5) == [])
        #expect(try io.size(location) == 10_000)
        #expect(try io.size("\(root)/missing") == nil)
        #expect(try io.size("\(root)/warehouse") == nil)
        // Overwriting replaces the whole file.
        try io.write(location, [1, 2, 3])
        #expect(try io.read(location) == [1, 2, 3])
        #expect { try io.read(location, range: 2 ..< 10) } throws: { ($0 as? SluiceError)?.message.contains("ends at byte 3") == true }
        try io.delete(location)
        try io.delete(location)
        #expect(try io.size(location) == nil)
        #expect { try io.read(location) } throws: { error in
            let error = error as? SluiceError
            return error?.code == SQLState("58P01") && error?.message.contains(location) == true
        }
        #expect(!allNames().contains { $0.contains(".sluice-tmp-") })
    }

    @Test func emptyFileRoundTrips() throws {
        try io.write("\(root)/empty", [])
        #expect(try io.read("\(root)/empty") == [])
        #expect(try io.size("\(root)/empty") == 0)
    }

    @Test func listWalksUnderThePrefixInOrder() throws {
        for path in ["t/metadata/v1.json", "t/metadata/v2.json", "t/data/b/2.parquet", "t/data/a/1.parquet", "t/data-x", "u/other"] {
            try io.write("\(root)/\(path)", Array(path.utf8))
        }
        let all = try io.list(prefix: "\(root)/t/")
        #expect(all.map(\.location) == ["t/data-x", "t/data/a/1.parquet", "t/data/b/2.parquet", "t/metadata/v1.json", "t/metadata/v2.json"].map { "\(root)/\($0)" })
        #expect(all.map(\.size) == [8, 18, 18, 18, 18])
        // A prefix that ends inside a name.
        #expect(try io.list(prefix: "\(root)/t/data").map(\.location) == ["\(root)/t/data-x", "\(root)/t/data/a/1.parquet", "\(root)/t/data/b/2.parquet"])
        // file:// prefixes answer with file:// locations.
        #expect(try io.list(prefix: "file://\(root)/t/metadata/").map(\.location) == ["file://\(root)/t/metadata/v1.json", "file://\(root)/t/metadata/v2.json"])
        #expect(try io.list(prefix: "\(root)/nothing/here/").isEmpty)
    }

    @Test func outputIsInvisibleUntilClosed() throws {
        let location = "\(root)/out/file.bin"
        let output = try io.output(location)
        try output.write([1, 2, 3])
        try output.write(Array(repeating: 9, count: 100_000))
        #expect(try io.size(location) == nil)
        #expect(try io.list(prefix: "\(root)/").isEmpty)
        #expect(try output.close() == 100_003)
        #expect(try io.read(location).count == 100_003)
        #expect(try io.read(location, range: 0 ..< 4) == [1, 2, 3, 9])
        #expect(throws: SluiceError.self) { try output.write([1]) }
    }

    @Test func abortedOrDroppedOutputLeavesNothing() throws {
        let first = try io.output("\(root)/a/aborted")
        try first.write([1, 2, 3])
        first.abort()
        #expect(throws: SluiceError.self) { _ = try first.close() }
        do {
            let dropped = try io.output("\(root)/a/dropped")
            try dropped.write([4, 5])
        }
        #expect(try io.size("\(root)/a/aborted") == nil)
        #expect(try io.size("\(root)/a/dropped") == nil)
        #expect(allNames() == ["a"])
    }

    /// A write whose rename cannot happen (the target is a directory) fails, leaves the target
    /// as it was, and removes its temporary file.
    @Test func failedWriteLeavesNothingBehind() throws {
        try FileManager.default.createDirectory(atPath: "\(root)/target/inner", withIntermediateDirectories: true)
        #expect(throws: SluiceError.self) { try io.write("\(root)/target", [1, 2, 3]) }
        let output = try io.output("\(root)/target")
        try output.write([1])
        #expect(throws: SluiceError.self) { _ = try output.close() }
        #expect(allNames() == ["target", "target/inner"])
        // A parent that is a file cannot hold a directory.
        try io.write("\(root)/plain", [0])
        #expect(throws: SluiceError.self) { try io.write("\(root)/plain/child", [1]) }
    }

    @Test func invalidLocationsAreRejected() {
        for location in ["relative/path", "file://otherhost/x", "s3://bucket/key", ""] {
            #expect(throws: SluiceError.self, "\(location)") { try io.read(location) }
        }
        #expect(throws: SluiceError.self) { try io.read("\(root)/x", range: -1 ..< 3) }
    }
}
