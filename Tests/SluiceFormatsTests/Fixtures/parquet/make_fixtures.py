"""Writes the Parquet fixtures of ParquetFixtureTests with pyarrow and DuckDB.

Run with /tmp/pyprobe/bin/python (pyarrow 26, duckdb 1.4.4) from this directory. The values
follow formulas that ParquetFixtureTests.swift computes independently for row i in 0..<200.
"""
import decimal
import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

N = 200


def rows():
    out = {k: [] for k in ["id", "i32", "u8", "u32", "u64", "f", "b", "s", "ts_ms", "ts_ns_tz", "d", "dec", "lst", "st"]}
    for i in range(N):
        out["id"].append(i)
        out["i32"].append(None if i % 10 == 7 else i * 3 - 100)
        out["u8"].append(i % 256)
        out["u32"].append(4_000_000_000 + i)
        out["u64"].append(2**63 + i)
        out["f"].append(i * 0.5)
        out["b"].append(None if i % 13 == 6 else i % 3 == 0)
        out["s"].append(None if i % 11 == 4 else ("" if i % 17 == 0 else f"s{i % 13}"))
        out["ts_ms"].append(i * 1000 + 5)
        out["ts_ns_tz"].append(1_600_000_000_000_000_000 + i * 1001)
        out["d"].append(i - 50)
        out["dec"].append(decimal.Decimal(i * 1500).scaleb(-3))
        out["lst"].append(None if i % 9 == 2 else [] if i % 9 == 3 else [i, None, i + 1] if i % 9 == 4 else [i])
        out["st"].append(None if i % 6 == 5 else {"a": i, "b": None if i % 2 else f"b{i}"})
    return out


data = rows()
table = pa.table({
    "id": pa.array(data["id"], pa.int64()),
    "i32": pa.array(data["i32"], pa.int32()),
    "u8": pa.array(data["u8"], pa.uint8()),
    "u32": pa.array(data["u32"], pa.uint32()),
    "u64": pa.array(data["u64"], pa.uint64()),
    "f": pa.array(data["f"], pa.float64()),
    "b": pa.array(data["b"], pa.bool_()),
    "s": pa.array(data["s"], pa.string()),
    "ts_ms": pa.array(data["ts_ms"], pa.timestamp("ms")),
    "ts_ns_tz": pa.array(data["ts_ns_tz"], pa.timestamp("ns", tz="UTC")),
    "d": pa.array(data["d"], pa.date32()),
    "dec": pa.array(data["dec"], pa.decimal128(10, 3)),
    "lst": pa.array(data["lst"], pa.list_(pa.int32())),
    "st": pa.array(data["st"], pa.struct([("a", pa.int32()), ("b", pa.string())])),
})

# pyarrow, data page v1, dictionary, snappy, several row groups and pages.
pq.write_table(table, "pyarrow_v1_snappy.parquet", compression="snappy", row_group_size=64, data_page_size=256)
# pyarrow, data page v2, DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / RLE booleans, zstd.
pq.write_table(table.select(["id", "i32", "b", "s", "lst"]), "pyarrow_v2_zstd_delta.parquet", compression="zstd",
               data_page_version="2.0", use_dictionary=False,
               column_encoding={"id": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED", "b": "RLE",
                                "s": "DELTA_LENGTH_BYTE_ARRAY", "lst": "DELTA_BINARY_PACKED"})
# pyarrow, legacy INT96 timestamps, gzip.
pq.write_table(table.select(["id", "ts_ns_tz"]), "pyarrow_int96_gzip.parquet", compression="gzip",
               use_deprecated_int96_timestamps=True)
# DuckDB, one thread, default (v1, snappy) and v2 + zstd.
con = duckdb.connect()
con.execute("SET threads=1")
con.register("t", table)
con.execute("COPY (SELECT * FROM t ORDER BY id) TO 'duckdb_v1.parquet' (FORMAT parquet, ROW_GROUP_SIZE 100)")
con.execute("COPY (SELECT * FROM t ORDER BY id) TO 'duckdb_v2_zstd.parquet' (FORMAT parquet, COMPRESSION zstd, PARQUET_VERSION v2)")
