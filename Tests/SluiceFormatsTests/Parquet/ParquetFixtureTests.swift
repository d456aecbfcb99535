import Testing
import SluiceCore
@testable import SluiceFormats
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files pyarrow and DuckDB wrote (Fixtures/parquet/make_fixtures.py): the reader must give
/// back the values the script put in, which the formulas here compute independently.
@Suite("Parquet reader: files from pyarrow and DuckDB")
struct ParquetFixtureTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let directory = String(#filePath).split(separator: "/", omittingEmptySubsequences: false).dropLast(2).joined(separator: "/")
        let path = directory + "/Fixtures/parquet/" + name
        guard let file = fopen(path, "rb") else { throw SluiceError(.ioError, "cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0 ..< count]
        }
        return bytes
    }

    /// Row `i`'s value of column `name`, as make_fixtures.py defines it.
    static func expected(_ name: String, _ i: Int, int96: Bool = false, duckdb: Bool = false) -> Value {
        switch name {
        case "id": return .int64(Int64(i))
        case "i32": return i % 10 == 7 ? .null : .int32(Int32(i * 3 - 100))
        case "u8": return .int16(Int16(i % 256))
        case "u32": return .int64(4_000_000_000 + Int64(i))
        case "u64": return .decimal(Decimal(mantissa: (Int128(1) << 63) + Int128(i), scale: 0))
        case "f": return .float64(Double(i) * 0.5)
        case "b": return i % 13 == 6 ? .null : .bool(i % 3 == 0)
        case "s": return i % 11 == 4 ? .null : .string(i % 17 == 0 ? "" : "s\(i % 13)")
        case "ts_ms": return .timestamp((Int64(i) * 1000 + 5) * 1000)
        case "ts_ns_tz":
            let micros = (1_600_000_000_000_000_000 + Int64(i) * 1001) / 1000
            return int96 ? .timestamp(micros) : .timestamptz(micros)
        case "d": return .date(Int32(i - 50))
        case "dec": return .decimal(Decimal(mantissa: Int128(i * 1500), scale: 3))
        case "lst":
            switch i % 9 {
            case 2: return .null
            case 3: return .list([])
            case 4: return .list([.int32(Int32(i)), .null, .int32(Int32(i + 1))])
            default: return .list([.int32(Int32(i))])
            }
        case "st": return i % 6 == 5 ? .null : .structure([.int32(Int32(i)), i % 2 == 1 ? .null : .string("b\(i)")])
        default: return .null
        }
    }

    @Test(arguments: ["pyarrow_v1_snappy.parquet", "pyarrow_v2_zstd_delta.parquet", "pyarrow_int96_gzip.parquet", "duckdb_v1.parquet", "duckdb_v2_zstd.parquet"])
    func readsTheValuesTheScriptWrote(_ name: String) throws {
        let reader = try ParquetReader(input: ParquetBytesInput(Self.fixture(name)))
        let names = reader.schema.map(\.name)
        var rows: [[Value]] = []
        for index in reader.rowGroups.indices { rows += try reader.readRowGroup(index).rows }
        #expect(rows.count == 200)
        for (i, row) in rows.enumerated() {
            for (column, value) in zip(names, row) {
                let want = Self.expected(column, i, int96: name.contains("int96"))
                if value != want {
                    Issue.record("\(name) row \(i) column \(column): \(value) != \(want)")
                    return
                }
            }
        }
    }

    @Test func mapsTypesAndKeepsStatistics() throws {
        let reader = try ParquetReader(input: ParquetBytesInput(Self.fixture("pyarrow_v1_snappy.parquet")))
        let types = Dictionary(uniqueKeysWithValues: reader.schema.map { ($0.name, $0.type) })
        #expect(types["u8"] == .int16 && types["u32"] == .int64 && types["u64"] == .decimal(precision: 20, scale: 0))
        #expect(types["ts_ms"] == .timestamp && types["ts_ns_tz"] == .timestamptz && types["dec"] == .decimal(precision: 10, scale: 3))
        #expect(types["lst"] == .list(.int32))
        #expect(reader.rowGroups.count == 4)
        // Row group 1 holds rows 64..<128: ids 64…127, s null at i % 11 == 4.
        let id = reader.rowGroups[1].columns[0]
        #expect(id.min == .int64(64) && id.max == .int64(127) && id.nullCount == 0)
        let s = reader.rowGroups[1].columns[7]
        #expect(s.nullCount == Int64((64 ..< 128).filter { $0 % 11 == 4 }.count))
        #expect(s.min == .string("") && s.max == .string("s9"))
    }
}
