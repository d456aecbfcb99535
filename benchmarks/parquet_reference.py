"""Reference figures for `sluice bench parquet`: pyarrow's and DuckDB's Parquet writers over the
same balloon rows Sluice's writer takes, each timed on the write alone (the rows are built in
memory first, as the Swift side builds its chunks before its clock starts).

    .venv/bin/python benchmarks/parquet_reference.py --rows 10000000 --codec zstd --level 1

Prints `label=value` lines, which `ParquetBenchmark.swift` reads:

    rows, input_bytes, checksum                  what was generated (the Swift side checks them)
    pyarrow_seconds, pyarrow_bytes               median write time of `pq.write_table`, file size
    duckdb_seconds, duckdb_bytes                 the same for DuckDB's COPY … TO (FORMAT parquet)

The rows (`balloon_row` below) are the Swift benchmark's formula, computed column-wise with
pyarrow.compute so generating 10 million of them takes seconds, not minutes.

Compression levels: ZSTD at `--level` for both (pyarrow `compression_level`, DuckDB
`COMPRESSION_LEVEL`); Arrow's own default for ZSTD is 1, DuckDB's is 3. GZIP at 6 for pyarrow
(Sluice's level; Arrow's default is 9); DuckDB's GZIP level is not settable.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

COLORS = ["red", "blue", "green", "yellow", "purple", "orange"]
PLAYERS = 5000
PAGES = 50
# 2024-05-01T12:00:00Z in microseconds.
FIRST_TIMESTAMP = 1_714_564_800_000_000
GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def mix(rows: pa.Array, salt: int) -> pa.Array:
    """SplitMix64's finalizer of `row * 8 + salt`, wrapping at 64 bits (unchecked arithmetic)."""

    def u64(value: int) -> pa.Scalar:
        return pa.scalar(value & MASK64, pa.uint64())

    z = pc.multiply(pc.bit_wise_or(pc.shift_left(rows, u64(3)), u64(salt)), u64(GOLDEN))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u64(30))), u64(0xBF58476D1CE4E5B9))
    z = pc.multiply(pc.bit_wise_xor(z, pc.shift_right(z, u64(27))), u64(0x94D049BB133111EB))
    return pc.bit_wise_xor(z, pc.shift_right(z, u64(31)))


def below(rows: pa.Array, salt: int, bound: int) -> pa.Array:
    return pc.remainder(mix(rows, salt), pa.scalar(bound, pa.uint64()))


def balloon_table(count: int) -> pa.Table:
    """Row i: player "player_<mix(i,1) % 5000>", colour COLORS[mix(i,2) % 6], score
    1 + mix(i,3) % 100, page id 1 + mix(i,4) % 50, bonus when mix(i,5) % 8 == 0, and
    event_ts FIRST_TIMESTAMP + 1000 i + mix(i,6) % 1000 microseconds (strictly increasing)."""
    ones = pa.repeat(pa.scalar(1, pa.uint64()), count)
    rows = pc.subtract(pc.cumulative_sum(ones), pa.scalar(1, pa.uint64())) if count else ones
    players = pa.array([f"player_{n}" for n in range(PLAYERS)], pa.string())
    colors = pa.array(COLORS, pa.string())
    one32 = pa.scalar(1, pa.int32())
    return pa.table({
        "player": players.take(below(rows, 1, PLAYERS)),
        "balloon_color": colors.take(below(rows, 2, len(COLORS))),
        "score": pc.add(pc.cast(below(rows, 3, 100), pa.int32()), one32),
        "page_id": pc.add(pc.cast(below(rows, 4, PAGES), pa.int32()), one32),
        "favorite_color_bonus": pc.equal(below(rows, 5, 8), pa.scalar(0, pa.uint64())),
        "event_ts": pc.cast(
            pc.add(pc.add(pc.multiply(pc.cast(rows, pa.int64()), pa.scalar(1000, pa.int64())), pa.scalar(FIRST_TIMESTAMP, pa.int64())),
                   pc.cast(below(rows, 6, 1000), pa.int64())),
            pa.timestamp("us", tz="UTC")),
    })


def input_bytes(table: pa.Table) -> int:
    """The values' bytes: the strings' UTF-8 plus 4 + 4 + 1 + 8 a row for the other columns."""
    strings = sum(pc.sum(pc.binary_length(table[name])).as_py() or 0 for name in ("player", "balloon_color"))
    return strings + table.num_rows * (4 + 4 + 1 + 8)


def checksum(table: pa.Table) -> int:
    """Sums the Swift side computes too, so both sides are known to write the same rows."""
    total = pc.sum(table["score"]).as_py() or 0
    total += 3 * (pc.sum(table["page_id"]).as_py() or 0)
    total += 5 * (pc.sum(pc.cast(table["favorite_color_bonus"], pa.int64())).as_py() or 0)
    total += 7 * (pc.sum(pc.binary_length(table["player"])).as_py() or 0)
    total += 11 * (pc.sum(pc.binary_length(table["balloon_color"])).as_py() or 0)
    timestamps = pc.cast(table["event_ts"], pa.int64())
    total += (pc.max(timestamps).as_py() or 0) - (pc.min(timestamps).as_py() or 0)
    return total


def timed(write, path: str, runs: int) -> tuple[float, int]:
    times = []
    for _ in range(runs):
        if os.path.exists(path):
            os.remove(path)
        start = time.perf_counter()
        write(path)
        times.append(time.perf_counter() - start)
    size = os.path.getsize(path)
    os.remove(path)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--codec", choices=["zstd", "snappy", "gzip", "none"], default="zstd")
    parser.add_argument("--level", type=int, default=1, help="ZSTD level (Arrow's default is 1)")
    parser.add_argument("--runs", type=int, default=3, help="writes per engine; the median is reported")
    parser.add_argument("--only", choices=["pyarrow", "duckdb"], help="run one engine only")
    arguments = parser.parse_args()

    table = balloon_table(arguments.rows)
    print(f"rows={table.num_rows}")
    print(f"input_bytes={input_bytes(table)}")
    print(f"checksum={checksum(table)}")
    directory = tempfile.mkdtemp(prefix="sluice-parquet-reference-")
    codec = arguments.codec

    if arguments.only in (None, "pyarrow"):
        level = {"zstd": arguments.level, "gzip": 6}.get(codec)
        def write_pyarrow(path: str) -> None:
            pq.write_table(table, path, compression=codec, compression_level=level)
        seconds, size = timed(write_pyarrow, os.path.join(directory, "pyarrow.parquet"), arguments.runs)
        print(f"pyarrow_seconds={seconds}")
        print(f"pyarrow_bytes={size}")

    if arguments.only in (None, "duckdb"):
        con = duckdb.connect()
        con.execute("SET threads = 1")
        con.register("generated", table)
        con.execute("CREATE TABLE balloons AS SELECT * FROM generated")
        con.unregister("generated")
        options = {"zstd": f"COMPRESSION zstd, COMPRESSION_LEVEL {arguments.level}", "snappy": "COMPRESSION snappy",
                   "gzip": "COMPRESSION gzip", "none": "COMPRESSION uncompressed"}[codec]
        def write_duckdb(path: str) -> None:
            con.execute(f"COPY balloons TO '{path}' (FORMAT parquet, {options})")
        seconds, size = timed(write_duckdb, os.path.join(directory, "duckdb.parquet"), arguments.runs)
        print(f"duckdb_seconds={seconds}")
        print(f"duckdb_bytes={size}")
    os.rmdir(directory)


if __name__ == "__main__":
    main()
