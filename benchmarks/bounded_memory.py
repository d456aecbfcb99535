"""Bounded memory: endless generated bids and auctions, with watermarks, through windowed,
joined, top-N and deduplicating views, while the server's resident memory is sampled. State
behind the watermarks is dropped, so resident memory at the end is within 20% of what it was
after the warm-up.

Full run (by hand, on the release build):

    .venv/bin/python benchmarks/bounded_memory.py --minutes 10 --warmup-minutes 2 --rate 50000

`tests/e2e/test_bounded_memory.py` runs it reduced in `make test`.

Every view's result grows by a few rows per second (one row per one-second window, three for
the top-N) while its input runs at `--rate` rows per second: what grows faster than that is
state that was not let go.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import psycopg  # noqa: E402

from harness import SluiceServer  # noqa: E402

SOURCES = """
CREATE SOURCE bids (auction INT, price INT, ts TIMESTAMPTZ, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH (connector = 'datagen', datagen.rows.per.second = '{bid_rate}', fields.auction.min = '0', fields.auction.max = '999',
        fields.price.min = '1', fields.price.max = '100000', fields.ts.max_past = '1 second', fields.ts.max_past_mode = 'relative');
CREATE SOURCE auctions (id INT, seller INT, ts TIMESTAMPTZ, WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH (connector = 'datagen', datagen.rows.per.second = '{auction_rate}', fields.id.min = '0', fields.id.max = '999',
        fields.seller.min = '0', fields.seller.max = '99', fields.ts.max_past = '1 second', fields.ts.max_past_mode = 'relative');
"""

VIEWS = {
    # An interval join, counted per window.
    "interval_joined": """
  WITH j AS (SELECT b.auction, b.price, b.ts FROM bids b JOIN auctions a
             ON b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND)
  SELECT window_start, count(*) AS pairs, sum(price) AS prices FROM TUMBLE(j, ts, INTERVAL '1' SECOND) GROUP BY window_start""",
    # A window join of two windowed aggregates.
    "window_joined": """
  WITH b AS (SELECT auction, window_start, count(*) AS bids FROM TUMBLE(bids, ts, INTERVAL '1' SECOND) GROUP BY auction, window_start),
       a AS (SELECT id, window_start, count(*) AS auctions FROM TUMBLE(auctions, ts, INTERVAL '1' SECOND) GROUP BY id, window_start)
  SELECT b.window_start, sum(b.bids) AS bids, sum(a.auctions) AS auctions, count(*) AS pairs
  FROM b JOIN a ON b.auction = a.id AND b.window_start = a.window_start GROUP BY b.window_start""",
    # A group top-N per window.
    "top_bids": """
  SELECT auction, price, window_start FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start ORDER BY price DESC, auction) AS rn FROM TUMBLE(bids, ts, INTERVAL '1' SECOND))
  WHERE rn <= 3""",
    # Deduplication per auction and window, counted per window.
    "first_bids": """
  WITH d AS (SELECT auction, price, window_start FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, window_start ORDER BY ts) AS rn FROM TUMBLE(bids, ts, INTERVAL '1' SECOND))
    WHERE rn = 1)
  SELECT window_start, count(*) AS auctions, sum(price) AS prices FROM d GROUP BY window_start""",
    # Distinct sellers and auctions per window, over a union.
    "distinct_ids": """
  WITH u AS (SELECT auction AS id, ts FROM bids UNION ALL SELECT id, ts FROM auctions)
  SELECT window_start, count(*) AS events, count(DISTINCT id) AS ids FROM TUMBLE(u, ts, INTERVAL '1' SECOND) GROUP BY window_start""",
}


@dataclass
class Sample:
    seconds: float
    rss_bytes: int
    state_bytes: int
    rows_in: int


@dataclass
class Run:
    rate: int
    samples: list[Sample] = field(default_factory=list)

    def at(self, seconds: float) -> Sample:
        """The first sample taken at or after `seconds`."""
        return next(sample for sample in self.samples if sample.seconds >= seconds)


def resident_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def run(total_seconds: float, rate: int, every: float = 5.0, binary: Path | None = None, report=print) -> Run:
    """Runs the pipeline for `total_seconds` at `rate` bids per second (a tenth of that in
    auctions), sampling resident memory, the views' state and the rows they read every `every`
    seconds."""
    result = Run(rate=rate)
    with SluiceServer(binary=binary) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            for statement in SOURCES.format(bid_rate=rate, auction_rate=max(rate // 10, 1)).split(";"):
                if statement.strip():
                    conn.execute(statement)
            for name, sql in VIEWS.items():
                conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {sql}")
            started = time.monotonic()
            while (elapsed := time.monotonic() - started) < total_seconds:
                time.sleep(max(0.0, every - (time.monotonic() - started) % every))
                state, rows_in = conn.execute("SELECT sum(state_bytes)::bigint, sum(rows_in)::bigint FROM rw_fragments").fetchone()
                sample = Sample(time.monotonic() - started, resident_bytes(server.process.pid), state, rows_in)
                result.samples.append(sample)
                report(f"{sample.seconds:7.1f} s  rss {sample.rss_bytes / 2**20:8.1f} MiB  state {sample.state_bytes / 2**20:8.2f} MiB  "
                       f"rows read {sample.rows_in:>12,}")
            for name in VIEWS:
                count = conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                if count == 0:
                    raise AssertionError(f"{name} has no rows: the pipeline did not run")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--warmup-minutes", type=float, default=2)
    parser.add_argument("--rate", type=int, default=50_000, help="bids per second (auctions: a tenth)")
    parser.add_argument("--binary", type=Path, default=REPO / ".build" / "release" / "sluice")
    args = parser.parse_args()
    result = run(args.minutes * 60, args.rate, every=10, binary=args.binary)
    warm, end = result.at(args.warmup_minutes * 60), result.samples[-1]
    growth = end.rss_bytes / warm.rss_bytes - 1
    read_rate = (end.rows_in - warm.rows_in) / (end.seconds - warm.seconds)
    print(f"\nresident memory after {warm.seconds:.0f} s: {warm.rss_bytes / 2**20:.1f} MiB; after {end.seconds:.0f} s: "
          f"{end.rss_bytes / 2**20:.1f} MiB ({growth:+.1%}); views read {read_rate:,.0f} rows/s after the warm-up")
    return 0 if growth <= 0.20 else 1


if __name__ == "__main__":
    sys.exit(main())
