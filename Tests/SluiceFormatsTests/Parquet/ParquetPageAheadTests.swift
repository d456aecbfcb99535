import Dispatch
import Synchronization
import Testing
import SluiceCore
@testable import SluiceFormats

/// Pages decompressed ahead (``ParquetReader/readRowGroup(_:columns:from:chunkRows:background:each:)``
/// with `background`) give the rows and the failures that reading in turn gives, whether the
/// jobs run on other threads, at once, or never (the reader then does each itself).
@Suite("Parquet pages decompressed ahead")
struct ParquetPageAheadTests {
    /// Runs each job on another thread.
    struct OtherThreads: BackgroundJobs {
        func run(_ job: @escaping @Sendable () -> Void) { DispatchQueue.global().async(execute: job) }
    }

    /// Runs each job before `run` returns: the page is ready when the reader gets to it.
    struct AtOnce: BackgroundJobs {
        func run(_ job: @escaping @Sendable () -> Void) { job() }
    }

    /// Keeps the jobs without running them: the reader takes every one over. ``runAll()`` runs
    /// them afterwards, when each must find itself taken and do nothing.
    final class Never: BackgroundJobs {
        let jobs = Mutex<[@Sendable () -> Void]>([])
        func run(_ job: @escaping @Sendable () -> Void) { jobs.withLock { $0.append(job) } }
        func runAll() -> Int {
            let all = jobs.withLock { $0 }
            for job in all { job() }
            return all.count
        }
    }

    /// Flat columns only (the streamed path): a boolean, integers, a double, strings, a time
    /// and a timestamp, some with NULLs.
    static let schema = [0, 1, 2, 3, 5, 9, 13, 15].map { ParquetTestSupport.schema[$0] }
    static let columns = Array(schema.indices)

    static func row(_ row: Int) -> [Value] {
        let all = ParquetTestSupport.row(row)
        return [0, 1, 2, 3, 5, 9, 13, 15].map { all[$0] }
    }

    /// Two row groups of 3,000 rows, written 250 rows at a time: a page or more per write.
    static func file(_ compression: ParquetCompression, dictionary: Bool) throws -> [UInt8] {
        let writer = try ParquetWriter(schema: schema, options: ParquetWriterOptions(compression: compression, pageBytes: 1200, dictionaryEnabled: dictionary))
        var bytes: [UInt8] = []
        for start in stride(from: 0, to: 6000, by: 250) {
            try writer.write(ParquetTestSupport.chunk(start ..< start + 250, schema: schema, row: row))
            if start == 2750 { _ = writer.flushRowGroup() }
            bytes += writer.takeOutput()
        }
        return try bytes + writer.finish().tail
    }

    static func stream(_ bytes: [UInt8], background: (any BackgroundJobs)?, chunkRows: Int, skip: Int = 0) throws(SluiceError) -> [[Value]] {
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        var rows: [[Value]] = []
        for group in reader.rowGroups.indices {
            try reader.readRowGroup(group, columns: columns, from: skip, chunkRows: chunkRows, background: background) { chunk in
                rows += chunk.rows
                return true
            }
        }
        return rows
    }

    @Test(arguments: [(ParquetCompression.zstd, true), (.zstd, false), (.snappy, false), (.gzip, true)])
    func theRowsAreThoseReadInTurn(_ compression: ParquetCompression, dictionary: Bool) throws {
        let bytes = try Self.file(compression, dictionary: dictionary)
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        // Several groups of many pages each, so pages are handed ahead and reached in turn.
        #expect(reader.rowGroups.count == 2)
        let expected = (0 ..< 6000).map(Self.row)
        #expect(try Self.stream(bytes, background: nil, chunkRows: 1024) == expected)
        for chunkRows in [1024, 333, 7] {
            #expect(try Self.stream(bytes, background: OtherThreads(), chunkRows: chunkRows) == expected, "other threads, chunks of \(chunkRows)")
            #expect(try Self.stream(bytes, background: AtOnce(), chunkRows: chunkRows) == expected, "at once, chunks of \(chunkRows)")
            let never = Never()
            #expect(try Self.stream(bytes, background: never, chunkRows: chunkRows) == expected, "never, chunks of \(chunkRows)")
            #expect(never.runAll() > 20)
        }
        // Rows skipped at the start of each group are decoded but not handed out, as in turn.
        let skipped = try Self.stream(bytes, background: nil, chunkRows: 500, skip: 130)
        #expect(try Self.stream(bytes, background: OtherThreads(), chunkRows: 500, skip: 130) == skipped)
    }

    /// A page corrupted in the middle of a column chunk fails with XX001 with or without jobs
    /// ahead, after the same rows; its job's failure reaches the reader, never a crash.
    @Test func aCorruptPageFailsAsInTurn() throws {
        let bytes = try Self.file(.zstd, dictionary: false)
        var damaged = 0
        // Bytes of the first group's data pages, a third and two thirds of the way in.
        for fraction in [3, 2] {
            var corrupt = bytes
            let at = bytes.count / fraction
            for offset in at ..< at + 40 { corrupt[offset] ^= 0x5A }
            func failure(_ background: (any BackgroundJobs)?) -> (rows: Int, code: SQLState?) {
                var rows = 0
                do throws(SluiceError) {
                    let reader = try ParquetReader(input: ParquetBytesInput(corrupt))
                    for group in reader.rowGroups.indices {
                        try reader.readRowGroup(group, columns: Self.columns, chunkRows: 100, background: background) { chunk in
                            rows += chunk.count
                            return true
                        }
                    }
                    return (rows, nil)
                } catch {
                    return (rows, error.code)
                }
            }
            let inTurn = failure(nil)
            guard inTurn.code != nil else { continue }  // the bytes hit only values that still decode
            damaged += 1
            #expect(inTurn.code == .dataCorrupted)
            for background in [OtherThreads(), AtOnce(), Never()] as [any BackgroundJobs] {
                let ahead = failure(background)
                #expect(ahead.code == inTurn.code && ahead.rows == inTurn.rows, "\(type(of: background)): \(ahead) against \(inTurn)")
            }
        }
        #expect(damaged > 0)
    }

    /// pyarrow's and DuckDB's files (data pages v1 and v2, zstd, snappy, gzip) stream the same
    /// with jobs ahead.
    @Test(arguments: ["pyarrow_v1_snappy.parquet", "pyarrow_v2_zstd_delta.parquet", "pyarrow_int96_gzip.parquet", "duckdb_v1.parquet", "duckdb_v2_zstd.parquet"])
    func otherWritersFilesStreamTheSame(_ name: String) throws {
        let bytes = try ParquetFixtureTests.fixture(name)
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        let flat = reader.schema.indices.filter { reader.schema[$0].children.isEmpty }
        for group in reader.rowGroups.indices {
            var inTurn: [[Value]] = []
            try reader.readRowGroup(group, columns: flat, chunkRows: 17) { chunk in
                inTurn += chunk.rows
                return true
            }
            for background in [OtherThreads(), AtOnce(), Never()] as [any BackgroundJobs] {
                var ahead: [[Value]] = []
                try reader.readRowGroup(group, columns: flat, chunkRows: 17, background: background) { chunk in
                    ahead += chunk.rows
                    return true
                }
                #expect(ahead == inTurn, "\(name) group \(group), \(type(of: background))")
            }
            #expect(inTurn.count == Int(reader.rowGroups[group].rowCount))
        }
    }
}
