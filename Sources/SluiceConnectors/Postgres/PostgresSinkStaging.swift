#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceLakehouse
import SluicePostgresClient

/// What a Postgres sink's prepare hands its commit: the epoch's staging file and its rows, and
/// the live transaction that holds the same rows, if one does.
struct PostgresSinkToken {
    /// A live transaction: its lane, the shipment's id there, and the sink instance that made
    /// it (a token restored after a restart names an instance that is gone).
    struct Live: Equatable {
        var lane: Int
        var shipment: UInt64
        var instance: UInt64
    }

    var file: String
    var rows: Int
    var live: Live?

    /// Little-endian: rows (8 bytes), the file's name; then, with a live transaction, a zero
    /// byte, its lane (1 byte), the shipment's id and the instance (8 bytes each). A token
    /// written before live transactions existed ends at the name.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: UInt64(rows).littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: file.utf8)
        if let live {
            bytes.append(0)
            bytes.append(UInt8(truncatingIfNeeded: live.lane))
            withUnsafeBytes(of: live.shipment.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: live.instance.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return bytes
    }

    init(file: String, rows: Int, live: Live? = nil) {
        self.file = file
        self.rows = rows
        self.live = live
    }

    init(decoding bytes: [UInt8]) throws(SluiceError) {
        guard bytes.count > 8 else { throw Self.damaged }
        guard let count = Int(exactly: Self.integer(bytes[0 ..< 8])) else { throw Self.damaged }
        rows = count
        let nameEnd = bytes[8...].firstIndex(of: 0) ?? bytes.endIndex
        file = String(decoding: bytes[8 ..< nameEnd], as: UTF8.self)
        guard !file.isEmpty, !file.contains("/") else { throw Self.damaged }
        if nameEnd < bytes.endIndex {
            guard bytes.endIndex - nameEnd == 18 else { throw Self.damaged }
            live = Live(
                lane: Int(bytes[nameEnd + 1]), shipment: Self.integer(bytes[nameEnd + 2 ..< nameEnd + 10]),
                instance: Self.integer(bytes[nameEnd + 10 ..< nameEnd + 18]))
        }
    }

    private static var damaged: SluiceError { SluiceError(.dataCorrupted, "a postgres sink's prepared epoch is damaged") }

    private static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
}

/// A staging file's pieces: a kind byte, a 4-byte little-endian length, and that many bytes of
/// COPY text. Consecutive pieces of one kind are one section (one COPY); a boundary ends a part.
enum StagingPieceKind: UInt8 {
    case boundary = 0
    case rows = 1
    case deletedKeys = 2
}

/// Writes an epoch's staging file: a temporary file, fsynced and renamed by ``publish(as:)``.
final class StagingWriter {
    private var descriptor: Int32
    /// The file's name until it is published (a reader may open it meanwhile).
    let temporary: String
    /// The bytes written so far.
    private(set) var size = 0

    init(besides path: String) throws(SluiceError) {
        (descriptor, temporary) = try POSIXFile.createTemporary(besides: path)
    }

    /// Appends a piece; returns where its bytes are in the file.
    @discardableResult
    func append(_ kind: StagingPieceKind, _ bytes: [UInt8]) throws(SluiceError) -> Range<Int> {
        var header: [UInt8] = [kind.rawValue]
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { header.append(contentsOf: $0) }
        do throws(SluiceError) {
            try POSIXFile.writeAll(header, to: descriptor, path: temporary)
            if !bytes.isEmpty { try POSIXFile.writeAll(bytes, to: descriptor, path: temporary) }
        } catch {
            // A piece written in part goes, so that the next append follows the last whole one.
            _ = ftruncate(descriptor, off_t(size))
            _ = lseek(descriptor, off_t(size), SEEK_SET)
            throw error
        }
        size += header.count + bytes.count
        return size - bytes.count ..< size
    }

    /// Whether the file can still be written (not published, not lost to a failed publish).
    var isOpen: Bool { descriptor >= 0 }

    /// Fsyncs the file and renames it to `path`. A failed fsync leaves it open and whole, to be
    /// published again; a failed rename loses it.
    func publish(as path: String) throws(SluiceError) {
        try POSIXFile.sync(descriptor, path: temporary)
        let descriptor = self.descriptor
        self.descriptor = -1
        try POSIXFile.publish(descriptor, temporary: temporary, as: path)
    }

    func discard() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            unlink(temporary)
        }
        descriptor = -1
    }

    deinit { discard() }
}

/// Reads an epoch's staging file section by section.
final class StagingReader {
    struct Section {
        var kind: StagingPieceKind
        /// The pieces' byte ranges in the file.
        var pieces: [Range<Int>]
    }

    private let descriptor: Int32
    private let path: String
    private let size: Int
    private var offset = 0

    init(_ path: String) throws(SluiceError) {
        self.path = path
        descriptor = try POSIXFile.openForReading(path)
        size = try POSIXFile.size(of: descriptor, path: path)
    }

    func close() { Glibc.close(descriptor) }

    /// The next section: its consecutive pieces of one kind (a boundary is a section alone).
    func nextSection() throws(SluiceError) -> Section? {
        guard offset < size else { return nil }
        var section: Section?
        while offset < size {
            let header = try POSIXFile.read(descriptor, path: path, offset: offset, count: 5)
            guard let kind = StagingPieceKind(rawValue: header[0]) else {
                throw SluiceError(.dataCorrupted, "the postgres sink's staging file \"\(path)\" is damaged at byte \(offset)")
            }
            let length = Int(UInt32(header[1]) | UInt32(header[2]) << 8 | UInt32(header[3]) << 16 | UInt32(header[4]) << 24)
            guard size - offset - 5 >= length else {
                throw SluiceError(.dataCorrupted, "the postgres sink's staging file \"\(path)\" ends inside a piece")
            }
            if let current = section, current.kind != kind || kind == .boundary { return current }
            if section == nil { section = Section(kind: kind, pieces: []) }
            section?.pieces.append(offset + 5 ..< offset + 5 + length)
            offset += 5 + length
            if kind == .boundary { return section }
        }
        return section
    }

    /// Sends a section's bytes to a COPY, a megabyte at a time, read into one buffer.
    func stream(_ section: Section, into writer: inout PostgresCopyWriter) throws(SluiceError) {
        for piece in section.pieces {
            try Self.send(piece, of: descriptor, file: "the postgres sink's staging file \"\(path)\"", into: &writer, scratch: &scratch)
        }
    }

    private var scratch = [UInt8](repeating: 0, count: 1 << 20)

    /// Sends bytes `piece` of the file open as `descriptor` to a COPY, read into `scratch` a
    /// buffer at a time.
    static func send(_ piece: Range<Int>, of descriptor: Int32, file: String, into writer: inout PostgresCopyWriter, scratch: inout [UInt8]) throws(SluiceError) {
        var start = piece.lowerBound
        while start < piece.upperBound {
            let count = min(scratch.count, piece.upperBound - start)
            var failure: SluiceError?
            scratch.withUnsafeMutableBytes { buffer in
                guard readFully(descriptor, into: buffer.baseAddress!, count: count, at: start) == count else {
                    failure = SluiceError(.ioError, "could not read \(file): \(String(cString: strerror(errno)))")
                    return
                }
                do throws(SluiceError) {
                    try writer.send(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            start += count
        }
    }

    /// pread until `count` bytes or the end; the bytes read (-1 on an error).
    static func readFully(_ descriptor: Int32, into base: UnsafeMutableRawPointer, count: Int, at offset: Int) -> Int {
        var done = 0
        while done < count {
            let read = pread(descriptor, base + done, count - done, off_t(offset + done))
            if read < 0 {
                if errno == EINTR { continue }
                return -1
            }
            if read == 0 { break }
            done += read
        }
        return done
    }
}
