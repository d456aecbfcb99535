import Foundation
import Testing
import SluiceCore
@testable import SluiceConnectors

/// A Postgres sink's prepared-epoch token (the staging file, its rows, the live transaction that
/// holds them) and its staging file's pieces, as the sink's lanes ship them.
@Suite struct PostgresSinkTokenTests {
    @Test func aTokenWithALiveTransactionComesBackWhole() throws {
        let live = PostgresSinkToken.Live(lane: 1, shipment: 42, instance: 0xDEAD_BEEF_0123_4567)
        let token = try PostgresSinkToken(decoding: PostgresSinkToken(file: "epoch-7.copy", rows: 5000, live: live).encoded)
        #expect(token.file == "epoch-7.copy")
        #expect(token.rows == 5000)
        #expect(token.live == live)
    }

    @Test func aTokenWithoutALiveTransactionIsTheOlderFormat() throws {
        var older: [UInt8] = []
        withUnsafeBytes(of: UInt64(12).littleEndian) { older.append(contentsOf: $0) }
        older.append(contentsOf: Array("epoch-3.copy".utf8))
        #expect(PostgresSinkToken(file: "epoch-3.copy", rows: 12).encoded == older)
        let token = try PostgresSinkToken(decoding: older)
        #expect(token.file == "epoch-3.copy" && token.rows == 12 && token.live == nil)
    }

    @Test func damagedTokensAreErrors() {
        let whole = PostgresSinkToken(file: "epoch-9.copy", rows: 1, live: PostgresSinkToken.Live(lane: 0, shipment: 1, instance: 2)).encoded
        for damaged in [Array(whole.prefix(8)), Array(whole.dropLast()), whole + [0], Array(whole.prefix(8)) + Array("a/b".utf8)] {
            #expect(throws: SluiceError.self) { try PostgresSinkToken(decoding: damaged) }
        }
    }

    @Test func piecesAreWhereTheWriterSaysAndTheReaderFindsThem() throws {
        let directory = NSTemporaryDirectory() + "postgres-sink-token-\(UInt32.random(in: 0 ... .max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let writer = try StagingWriter(besides: "\(directory)/epoch")
        let first = try writer.append(.rows, Array("1\ta\n2\tb\n".utf8))
        let second = try writer.append(.rows, Array("3\tc\n".utf8))
        #expect(first == 5 ..< 13)
        #expect(second == 18 ..< 22)
        #expect(writer.size == 22)
        try writer.publish(as: "\(directory)/epoch-1.copy")
        let reader = try StagingReader("\(directory)/epoch-1.copy")
        defer { reader.close() }
        let section = try #require(try reader.nextSection())
        #expect(section.kind == .rows && section.pieces == [first, second])
        #expect(try reader.nextSection() == nil)
    }
}
