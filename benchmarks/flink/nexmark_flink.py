"""Nexmark on Apache Flink and on Sluice, side by side, on this machine and the same events.

Run by hand (not in CI): `make bench-flink EVENTS=1000000` (which makes .venv-flink and the
release binary first), or

    .venv-flink/bin/python benchmarks/flink/nexmark_flink.py --events 1000000 [--queries q0,q1]

1. `sluice gen nexmark --count N --output events.json` writes the N events that `sluice bench
   nexmark --events N` loads into its broker (the same generator, seed and simulated clock): one
   JSON object per line, persons, auctions and bids nested under `event_type`.
2. Flink (PyFlink's local cluster, one JVM, parallelism --parallelism) reads that file with its
   filesystem connector and JSON format, in streaming mode, with the watermark Flink's Nexmark
   uses (`date_time - INTERVAL '4' SECOND`), and runs each query into a blackhole sink. A query's
   time runs from submitting its INSERT until the job has finished; the time of the same job over
   an empty file (the cost of starting a job) is measured once and subtracted, and both figures
   are printed.
3. `sluice bench nexmark --events N --queries …` runs the same queries in RisingWave's dialect
   (its source reads the events from its built-in broker, which is more work than a file).

Each Flink query below is the one Flink's Nexmark (github.com/nexmark/nexmark) runs, written over
this layout's column names (snake_case, as RisingWave's nexmark-bench has them) and selecting the
same columns as the RisingWave queries in `Sources/SluiceBench/NexmarkViewBenchmark.swift`.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """
CREATE TEMPORARY TABLE {name} (
  event_type BIGINT,
  person ROW<id BIGINT, name STRING, email_address STRING, credit_card STRING, city STRING, state STRING,
             date_time TIMESTAMP(3), extra STRING>,
  auction ROW<id BIGINT, item_name STRING, description STRING, initial_bid BIGINT, reserve BIGINT,
              date_time TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING>,
  bid ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, date_time TIMESTAMP(3), extra STRING>,
  date_time AS CASE WHEN event_type = 0 THEN person.date_time WHEN event_type = 1 THEN auction.date_time ELSE bid.date_time END,
  p_time AS PROCTIME(),
  WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')
"""

VIEWS = [
    "CREATE TEMPORARY VIEW {p}person AS SELECT person.id, person.name, person.email_address, person.credit_card, person.city, person.state, date_time, person.extra FROM {src} WHERE event_type = 0",
    "CREATE TEMPORARY VIEW {p}auction AS SELECT auction.id, auction.item_name, auction.description, auction.initial_bid, auction.reserve, date_time, auction.expires, auction.seller, auction.category, auction.extra FROM {src} WHERE event_type = 1",
    "CREATE TEMPORARY VIEW {p}bid AS SELECT bid.auction, bid.bidder, bid.price, bid.channel, bid.url, date_time, bid.extra FROM {src} WHERE event_type = 2",
    "CREATE TEMPORARY VIEW {p}bid_p AS SELECT bid.auction, bid.bidder, bid.price, date_time, p_time FROM {src} WHERE event_type = 2",
]

# Flink's Nexmark queries ({p} prefixes the views: the empty-file run uses its own).
QUERIES: dict[str, str] = {
    "q0": "SELECT auction, bidder, price, date_time FROM {p}bid",
    "q1": "SELECT auction, bidder, 0.908 * price AS price, date_time FROM {p}bid",
    "q2": "SELECT auction, price FROM {p}bid WHERE MOD(auction, 123) = 0",
    "q3": "SELECT P.name, P.city, P.state, A.id FROM {p}auction AS A INNER JOIN {p}person AS P ON A.seller = P.id "
          "WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')",
    "q4": "SELECT Q.category, AVG(Q.final) FROM (SELECT MAX(B.price) AS final, A.category FROM {p}auction A, {p}bid B "
          "WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires GROUP BY A.id, A.category) Q GROUP BY Q.category",
    "q5": "SELECT AuctionBids.auction, AuctionBids.num FROM ("
          " SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime"
          " FROM TABLE(HOP(TABLE {p}bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))"
          " GROUP BY auction, window_start, window_end) AS AuctionBids JOIN ("
          " SELECT max(CountBids.num) AS maxn, CountBids.starttime, CountBids.endtime FROM ("
          "  SELECT count(*) AS num, window_start AS starttime, window_end AS endtime"
          "  FROM TABLE(HOP(TABLE {p}bid, DESCRIPTOR(date_time), INTERVAL '2' SECOND, INTERVAL '10' SECOND))"
          "  GROUP BY auction, window_start, window_end) AS CountBids"
          " GROUP BY CountBids.starttime, CountBids.endtime) AS MaxBids"
          " ON AuctionBids.starttime = MaxBids.starttime AND AuctionBids.endtime = MaxBids.endtime AND AuctionBids.num >= MaxBids.maxn",
    "q7": "SELECT B.auction, B.price, B.bidder, B.date_time FROM {p}bid B JOIN ("
          " SELECT MAX(price) AS maxprice, window_end AS date_time"
          " FROM TABLE(TUMBLE(TABLE {p}bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY window_start, window_end) B1"
          " ON B.price = B1.maxprice WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time",
    "q8": "SELECT P.id, P.name, P.starttime FROM ("
          " SELECT id, name, window_start AS starttime, window_end AS endtime"
          " FROM TABLE(TUMBLE(TABLE {p}person, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY id, name, window_start, window_end) P"
          " JOIN (SELECT seller, window_start AS starttime, window_end AS endtime"
          " FROM TABLE(TUMBLE(TABLE {p}auction, DESCRIPTOR(date_time), INTERVAL '10' SECOND)) GROUP BY seller, window_start, window_end) A"
          " ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime",
    "q9": "SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, auction, bidder, price, bid_date_time FROM ("
          " SELECT A.*, B.auction, B.bidder, B.price, B.date_time AS bid_date_time,"
          " ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum"
          " FROM {p}auction A, {p}bid B WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires) WHERE rownum <= 1",
    "q10": "SELECT auction, bidder, price, date_time, DATE_FORMAT(date_time, 'yyyy-MM-dd'), DATE_FORMAT(date_time, 'HH:mm') FROM {p}bid",
    "q11": "SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime"
           " FROM TABLE(SESSION(TABLE {p}bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND))"
           " GROUP BY bidder, window_start, window_end",
    "q12": "SELECT bidder, count(*) AS bid_count, window_start, window_end"
           " FROM TABLE(TUMBLE(TABLE {p}bid_p, DESCRIPTOR(p_time), INTERVAL '10' SECOND))"
           " GROUP BY bidder, window_start, window_end",
    "q13": "SELECT B.auction, B.bidder, B.price, B.date_time, S.`value` FROM {p}bid_p B"
           " JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S ON MOD(B.auction, 10000) = S.key",
    "q14": "SELECT auction, bidder, 0.908 * price AS price, CASE"
           " WHEN HOUR(date_time) >= 8 AND HOUR(date_time) <= 18 THEN 'dayTime'"
           " WHEN HOUR(date_time) <= 6 OR HOUR(date_time) >= 20 THEN 'nightTime' ELSE 'otherTime' END AS bidTimeType,"
           " date_time, extra FROM {p}bid WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000",
    "q15": "SELECT DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, count(*) AS total_bids,"
           " count(*) FILTER (WHERE price < 10000) AS rank1_bids,"
           " count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,"
           " count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,"
           " count(DISTINCT bidder) AS total_bidders,"
           " count(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,"
           " count(DISTINCT bidder) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bidders,"
           " count(DISTINCT bidder) FILTER (WHERE price >= 1000000) AS rank3_bidders,"
           " count(DISTINCT auction) AS total_auctions,"
           " count(DISTINCT auction) FILTER (WHERE price < 10000) AS rank1_auctions,"
           " count(DISTINCT auction) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_auctions,"
           " count(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions"
           " FROM {p}bid GROUP BY DATE_FORMAT(date_time, 'yyyy-MM-dd')",
    "q16": "SELECT channel, DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, max(DATE_FORMAT(date_time, 'HH:mm')) AS `minute`,"
           " count(*) AS total_bids,"
           " count(*) FILTER (WHERE price < 10000) AS rank1_bids,"
           " count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,"
           " count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,"
           " count(DISTINCT bidder) AS total_bidders,"
           " count(DISTINCT bidder) FILTER (WHERE price < 10000) AS rank1_bidders,"
           " count(DISTINCT auction) AS total_auctions,"
           " count(DISTINCT auction) FILTER (WHERE price >= 1000000) AS rank3_auctions"
           " FROM {p}bid GROUP BY channel, DATE_FORMAT(date_time, 'yyyy-MM-dd')",
    "q17": "SELECT auction, DATE_FORMAT(date_time, 'yyyy-MM-dd') AS `day`, count(*) AS total_bids,"
           " count(*) FILTER (WHERE price < 10000) AS rank1_bids,"
           " count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,"
           " count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,"
           " min(price) AS min_price, max(price) AS max_price, avg(price) AS avg_price, sum(price) AS sum_price"
           " FROM {p}bid GROUP BY auction, DATE_FORMAT(date_time, 'yyyy-MM-dd')",
    "q18": "SELECT auction, bidder, price, channel, url, date_time, extra FROM ("
           " SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number FROM {p}bid)"
           " WHERE rank_number <= 1",
    "q19": "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM {p}bid)"
           " WHERE rank_number <= 10",
    "q20": "SELECT auction, bidder, price, channel, url, B.date_time, B.extra, item_name, description, initial_bid, reserve,"
           " A.date_time, expires, seller, category, A.extra"
           " FROM {p}bid AS B INNER JOIN {p}auction AS A ON B.auction = A.id WHERE A.category = 10",
    "q21": "SELECT auction, bidder, price, channel, CASE"
           " WHEN lower(channel) = 'apple' THEN '0' WHEN lower(channel) = 'google' THEN '1'"
           " WHEN lower(channel) = 'facebook' THEN '2' WHEN lower(channel) = 'baidu' THEN '3'"
           " ELSE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) END AS channel_id"
           " FROM {p}bid WHERE REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2) IS NOT NULL"
           " OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')",
    "q22": "SELECT auction, bidder, price, channel, SPLIT_INDEX(url, '/', 3) AS dir1, SPLIT_INDEX(url, '/', 4) AS dir2,"
           " SPLIT_INDEX(url, '/', 5) AS dir3 FROM {p}bid",
}


def flink_environment(parallelism: int):
    from pyflink.table import EnvironmentSettings, TableEnvironment

    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = env.get_config()
    config.set("parallelism.default", str(parallelism))
    # Flink's Nexmark settings: mini-batches for aggregates and two-phase aggregation.
    config.set("table.exec.mini-batch.enabled", "true")
    config.set("table.exec.mini-batch.allow-latency", "2 s")
    config.set("table.exec.mini-batch.size", "50000")
    config.set("table.optimizer.distinct-agg.split.enabled", "true")
    config.set("taskmanager.memory.process.size", "4g")
    return env


def run_flink(env, prefix: str, query: str) -> float:
    """Seconds from submitting `INSERT INTO blackhole SELECT …` until its job has finished."""
    sql = QUERIES[query].format(p=prefix)
    columns = env.sql_query(sql).get_schema()
    sink = f"sink_{prefix}{query}"
    fields = ", ".join(f"`{name}` {dtype}" for name, dtype in zip(columns.get_field_names(), _types(columns)))
    env.execute_sql(f"CREATE TEMPORARY TABLE IF NOT EXISTS {sink} ({fields}) WITH ('connector' = 'blackhole')")
    started = time.monotonic()
    env.execute_sql(f"INSERT INTO {sink} {sql}").wait()
    return time.monotonic() - started


def _types(schema) -> list[str]:
    # A rowtime attribute becomes a plain TIMESTAMP(3) in the sink.
    return [re.sub(r"TIMESTAMP\(3\) \*ROWTIME\*", "TIMESTAMP(3)", str(t)) for t in schema.get_field_data_types()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--queries", default=",".join(QUERIES))
    parser.add_argument("--parallelism", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--sluice", default=str(ROOT / ".build/release/sluice"))
    parser.add_argument("--skip-sluice", action="store_true", help="run Flink only")
    arguments = parser.parse_args()
    queries = [q.strip() for q in arguments.queries.split(",") if q.strip()]
    unknown = [q for q in queries if q not in QUERIES]
    if unknown:
        sys.exit(f"unknown queries: {', '.join(unknown)} (known: {', '.join(QUERIES)})")

    work = Path(tempfile.mkdtemp(prefix="nexmark-flink-"))
    events = work / "events" / "events.json"
    empty = work / "empty" / "empty.json"
    events.parent.mkdir()
    empty.parent.mkdir()
    empty.write_text("")
    subprocess.run([arguments.sluice, "gen", "nexmark", "--count", str(arguments.events), "--output", str(events)], check=True)
    print(f"events: {arguments.events} ({events.stat().st_size / 1e6:.1f} MB of JSON) in {events}", flush=True)

    sluice: dict[str, float] = {}
    if not arguments.skip_sluice:
        result = subprocess.run(
            [arguments.sluice, "bench", "nexmark", "--events", str(arguments.events), "--queries", ",".join(queries)],
            check=True, capture_output=True, text=True)
        print(result.stdout, flush=True)
        for line in result.stdout.splitlines():
            match = re.match(r"\s*nexmark (q\d+)\s+[\d.]+ s\s+(\d+) events/s", line)
            if match:
                sluice[match.group(1)] = float(match.group(2))

    env = flink_environment(arguments.parallelism)
    env.execute_sql(SOURCE.format(name="nexmark", path=events.parent))
    env.execute_sql(SOURCE.format(name="empty_nexmark", path=empty.parent))
    # q13's side input, a value for each auction id modulo 10,000, read by lookup.
    side = work / "side" / "side.csv"
    side.parent.mkdir()
    side.write_text("".join(f"{key},value {key}\n" for key in range(10000)))
    env.execute_sql(f"CREATE TEMPORARY TABLE side_input (key BIGINT, `value` STRING) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{side.parent}', 'format' = 'csv')")
    for view in VIEWS:
        env.execute_sql(view.format(p="", src="nexmark"))
        env.execute_sql(view.format(p="empty_", src="empty_nexmark"))
    # The first job warms the JVM up; the cost of a job over no events is the median of three.
    run_flink(env, "empty_", "q0")
    startup = sorted(run_flink(env, "empty_", "q0") for _ in range(3))[1]
    print(f"flink: parallelism {arguments.parallelism}; a job over no events takes {startup:.2f} s (subtracted below)", flush=True)

    rows = []
    for query in queries:
        try:
            seconds = run_flink(env, "", query)
        except Exception as error:  # noqa: BLE001 - a query Flink refuses is reported, the others still run
            print(f"  flink {query:4} failed: {str(error).splitlines()[0][:200]}", flush=True)
            continue
        net = max(seconds - startup, 1e-3)
        flink_rate = arguments.events / net
        rows.append((query, seconds, flink_rate, sluice.get(query)))
        ratio = f"{sluice[query] / flink_rate:6.2f}x" if query in sluice else ""
        print(f"  flink {query:4} {seconds:7.2f} s  {flink_rate:10.0f} events/s   sluice {sluice.get(query, 0):10.0f} events/s  {ratio}", flush=True)

    def geomean(values: list[float]) -> float:
        return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")

    if sluice:
        print("\n| query | Flink events/s | Sluice events/s | Sluice / Flink |")
        print("|---|---:|---:|---:|")
        for query, _, flink_rate, rate in rows:
            if rate:
                print(f"| {query} | {flink_rate:,.0f} | {rate:,.0f} | {rate / flink_rate:.2f} |")
        for label, group in (("q0-q2", ["q0", "q1", "q2"]), ("q3, q4, q5, q7, q8", ["q3", "q4", "q5", "q7", "q8"])):
            pairs = [(r[2], r[3]) for r in rows if r[0] in group and r[3]]
            if pairs:
                print(f"geometric mean over {label}: Flink {geomean([p[0] for p in pairs]):,.0f}, Sluice {geomean([p[1] for p in pairs]):,.0f}, "
                      f"ratio {geomean([p[1] / p[0] for p in pairs]):.2f}")


if __name__ == "__main__":
    main()
