"""The HTTP app: `/health` and `/ready`, Prometheus `/metrics` read by the Prometheus client's own
text-format parser, the read-only SQL endpoint against the same query over psycopg, the
server-sent events feed, and the dashboard itself in a real browser (Debian's chromium driven
by Playwright): the pipeline graph and the charts render with live values that change between
two reads, and the SQL box shows the right rows."""

from __future__ import annotations

import json
import time
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from kafka import KafkaProducer
from prometheus_client.parser import text_string_to_metric_families

from harness import SluiceServer
from source_support import connect, source_status, wait_until

EVENT = '{{"player": "p{player}", "balloon_color": "{color}", "score": {score}, "page_id": 1, "favorite_color_bonus": {bonus}, "event_ts": "{ts}"}}'
COLORS = ["red", "blue", "green", "yellow"]


def _get(url: str, timeout: float = 10) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


def _query(server: SluiceServer, sql: str) -> dict:
    request = urllib.request.Request(f"{server.http_base}/api/query", data=sql.encode(), method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _metrics(server: SluiceServer) -> dict[tuple[str, tuple], float]:
    status, content_type, text = _get(f"{server.http_base}/metrics")
    assert status == 200 and content_type.startswith("text/plain"), (status, content_type)
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def _produce(server: SluiceServer, topic: str, start: int, count: int) -> None:
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all", linger_ms=5)
    for i in range(start, start + count):
        seconds = i % 60
        producer.send(topic, EVENT.format(player=i % 7, color=COLORS[i % 4], score=1 + i % 10, bonus="true" if i % 3 == 0 else "false",
                                          ts=f"2026-11-26T10:00:{seconds:02}Z").encode())
    producer.flush(timeout=60)
    producer.close()


def _pipeline(server: SluiceServer, conn, topic: str) -> None:
    """Seed 000's source and two of its views (one grouped, one windowed), and a sink."""
    producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap)
    producer.partitions_for(topic)  # creates the topic (auto-creation) before the source starts
    producer.close()
    conn.execute(f"""CREATE SOURCE events (player varchar, balloon_color varchar, score int, page_id int,
        favorite_color_bonus boolean, event_ts timestamptz) WITH (connector = 'kafka', topic = '{topic}',
        properties.bootstrap.server = '{server.kafka_bootstrap}', scan.startup.mode = 'earliest') FORMAT PLAIN ENCODE JSON""")
    conn.execute("""CREATE MATERIALIZED VIEW leaderboard AS SELECT player, sum(score) AS total_score, count(*) AS pops
        FROM events GROUP BY player""")
    conn.execute("""CREATE MATERIALIZED VIEW color_windows AS SELECT balloon_color, count(*) AS pops, window_start, window_end
        FROM TUMBLE(events, event_ts, INTERVAL '15 SECONDS') GROUP BY balloon_color, window_start, window_end""")
    conn.execute("""CREATE SINK board_sink FROM leaderboard WITH (connector = 'iceberg', type = 'upsert', primary_key = 'player',
        database.name = 'dash', table.name = 'board', warehouse.path = 'lake', commit_checkpoint_interval = '1')""")


@pytest.fixture(scope="module")
def server():
    with SluiceServer(extra_args=["--barrier-interval-ms", "200"]) as server:
        yield server


def test_health_and_ready_answer(server: SluiceServer) -> None:
    assert _get(f"{server.http_base}/health")[0::2] == (200, "ok\n")
    assert _get(f"{server.http_base}/ready")[0::2] == (200, "ready\n")
    assert _get(f"{server.http_base}/no-such-page")[0] == 404


def test_metrics_parse_and_follow_the_pipeline(server: SluiceServer) -> None:
    with connect(server) as conn:
        _pipeline(server, conn, "metrics-events")
        _produce(server, "metrics-events", 0, 300)
        wait_until(lambda: source_status(conn, "events")[0] >= 300, 60, "the source to read 300 events")
        conn.execute("FLUSH")
        first = _metrics(server)
        source = (("source", "events"),)
        assert first[("sluice_source_rows_total", source)] >= 300
        assert first[("sluice_broker_records_produced_total", (("topic", "metrics-events"),))] >= 300
        assert first[("sluice_broker_bytes_fetched_total", (("topic", "metrics-events"),))] > 0
        assert first[("sluice_view_rows", (("view", "leaderboard"),))] == conn.execute("SELECT count(*) FROM leaderboard").fetchone()[0] == 7
        assert first[("sluice_memory_limit_bytes", ())] > 0
        assert first[("sluice_checkpoint_duration_seconds_count", ())] > 0
        assert first[("sluice_barrier_latency_seconds_count", ())] > 0
        assert ("sluice_recovery_seconds", ()) in first

        _produce(server, "metrics-events", 300, 200)
        wait_until(lambda: source_status(conn, "events")[0] >= 500, 60, "the source to read 200 more events")
        conn.execute("FLUSH")
        wait_until(lambda: _metrics(server)[("sluice_sink_commits_total", (("sink", "board_sink"),))] >= 1, 30, "the sink to commit")
        second = _metrics(server)
        # Counters move with the load, by exactly what the system tables say.
        rows_read, bytes_read = conn.execute("SELECT rows_read, bytes_read FROM sluice_sources WHERE name = 'events'").fetchone()
        assert second[("sluice_source_rows_total", source)] == rows_read >= 500
        # Bytes are the message values' (each event's JSON), and every message is read: no lag.
        assert second[("sluice_source_bytes_total", source)] == bytes_read >= 500 * 100
        wait_until(lambda: conn.execute("SELECT lag FROM sluice_sources WHERE name = 'events'").fetchone()[0] == 0, 30, "the lag to reach 0")
        assert _metrics(server)[("sluice_source_lag_messages", source)] == 0
        assert second[("sluice_broker_records_produced_total", (("topic", "metrics-events"),))] - \
            first[("sluice_broker_records_produced_total", (("topic", "metrics-events"),))] == 200
        assert second[("sluice_view_rows_in_total", (("view", "leaderboard"),))] > first[("sluice_view_rows_in_total", (("view", "leaderboard"),))]
        # The view's changes: each player's row inserted once, then updated (two rows a change).
        rows_out = conn.execute("SELECT rows_out FROM rw_fragments WHERE name = 'leaderboard'").fetchone()[0]
        assert second[("sluice_view_rows_out_total", (("view", "leaderboard"),))] == rows_out > 7
        assert second[("sluice_checkpoint_duration_seconds_count", ())] > first[("sluice_checkpoint_duration_seconds_count", ())]
        conn.execute("DROP SINK board_sink")
        conn.execute("DROP MATERIALIZED VIEW color_windows")
        conn.execute("DROP MATERIALIZED VIEW leaderboard")
        conn.execute("DROP SOURCE events")


def test_query_endpoint_answers_like_psql_and_refuses_writes(server: SluiceServer) -> None:
    with connect(server) as conn:
        conn.execute("CREATE TABLE q (id int PRIMARY KEY, name varchar, price numeric, at timestamptz)")
        conn.execute("INSERT INTO q SELECT g, 'n' || g, g * 1.5, TIMESTAMPTZ '2026-01-01 00:00:00+00' + g * INTERVAL '1 hour' FROM generate_series(1, 2500) AS g")
        conn.execute("FLUSH")
        sql = "SELECT id, name, price, at, id % 2 = 0 AS even FROM q WHERE id <= 40 ORDER BY id"
        result = _query(server, sql)
        assert [c["name"] for c in result["columns"]] == ["id", "name", "price", "at", "even"]
        expected = conn.execute(sql).fetchall()
        assert len(result["rows"]) == 40
        for got, want in zip(result["rows"], expected):
            assert got[0] == want[0] and got[1] == want[1] and got[2] == float(want[2]) and got[4] == want[4]
            assert got[3].startswith(want[3].strftime("%Y-%m-%d %H:%M:%S")), (got[3], want[3])
        # The row limit: the first 1,000 rows, said to be cut.
        big = _query(server, "SELECT * FROM q")
        assert len(big["rows"]) == 1000 and big["truncated"] is True
        # Writes and DDL are refused before they run; mistakes come back with their SQLSTATE.
        assert _query(server, "INSERT INTO q VALUES (9999, 'x', 1, now())")["error"]["sqlstate"] == "25006"
        assert _query(server, "DROP TABLE q")["error"]["sqlstate"] == "25006"
        assert _query(server, "SELECT * FROM no_such_table")["error"]["sqlstate"] == "42P01"
        assert _query(server, "SELEC 1")["error"]["sqlstate"] == "42601"
        assert _query(server, "SELECT 1; SELECT 2")["error"]["sqlstate"] == "42601"
        assert conn.execute("SELECT count(*) FROM q").fetchone()[0] == 2500
        conn.execute("DROP TABLE q")


def test_the_event_stream_carries_the_pipeline(server: SluiceServer) -> None:
    with connect(server) as conn:
        conn.execute("CREATE TABLE s (k varchar, v int)")
        conn.execute("CREATE MATERIALIZED VIEW s_totals AS SELECT k, sum(v) AS total FROM s GROUP BY k")
        conn.execute("INSERT INTO s VALUES ('a', 1), ('b', 2), ('a', 3)")
        conn.execute("FLUSH")
        with urllib.request.urlopen(f"{server.http_base}/events", timeout=30) as response:
            assert response.headers["Content-Type"] == "text/event-stream"
            data = None
            for raw in response:
                line = raw.decode().rstrip("\n")
                if line.startswith("data: "):
                    data = json.loads(line[len("data: "):])
                    break
        nodes = {node["name"]: node for node in data["nodes"]}
        assert nodes["s"]["kind"] == "table" and nodes["s_totals"]["kind"] == "materialized view"
        assert {"from": nodes["s"]["id"], "to": nodes["s_totals"]["id"]} in data["edges"]
        view = next(v for v in data["views"] if v["name"] == "s_totals")
        assert view["chart"]["kind"] == "bars"
        assert sorted(map(tuple, view["rows"])) == [("a", 4), ("b", 2)]
        conn.execute("DROP MATERIALIZED VIEW s_totals")
        conn.execute("DROP TABLE s")


def _chromium() -> str:
    path = shutil.which("chromium")
    assert path, "Debian's chromium is missing: tests/install-system-deps.sh installs it"
    return path


def test_the_dashboard_in_a_real_browser(server: SluiceServer, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with connect(server) as conn:
        _pipeline(server, conn, "browser-events")
        _produce(server, "browser-events", 0, 200)
        wait_until(lambda: source_status(conn, "events")[0] >= 200, 60, "the source to read 200 events")
        conn.execute("FLUSH")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=_chromium(), args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1500, "height": 1300})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(server.http_base + "/")
            page.wait_for_selector("#connection[data-state=live]", timeout=15000)
            # The graph: the source, both views and the sink, with the edges between them.
            page.wait_for_selector("#graph svg g.node[data-name=board_sink]", timeout=15000)
            names = set(page.eval_on_selector_all("#graph g.node", "nodes => nodes.map(n => n.dataset.name)"))
            assert {"events", "leaderboard", "color_windows", "board_sink"} <= names
            assert page.eval_on_selector_all("#graph g.edge", "edges => edges.length") >= 3
            # The charts: bars for the GROUP BY, lines for the windowed view.
            page.wait_for_selector(".view[data-name=leaderboard] svg.chart.bars rect.bar", timeout=15000)
            bars = page.eval_on_selector_all(
                ".view[data-name=leaderboard] rect.bar", "bars => bars.map(b => [b.dataset.label, Number(b.dataset.value)])")
            expected = dict(conn.execute("SELECT player, total_score FROM leaderboard").fetchall())
            assert len(bars) == 7 and dict(bars) == expected
            assert page.eval_on_selector_all(".view[data-name=color_windows] svg.chart.lines path.line", "lines => lines.length") == 4

            # Live values: more events change the source's count and the bars without a reload.
            before = int(page.get_attribute("#sources .card[data-name=events] [data-metric=rows_read]", "data-value"))
            _produce(server, "browser-events", 200, 300)
            wait_until(lambda: int(page.get_attribute("#sources .card[data-name=events] [data-metric=rows_read]", "data-value")) >= before + 300,
                       30, "the dashboard to show the new events")
            # The source has read them; FLUSH waits until the views hold them too, so every
            # reader below (the bars, the SQL box, this session) sees one state.
            conn.execute("FLUSH")
            expected = dict(conn.execute("SELECT player, total_score FROM leaderboard").fetchall())
            wait_until(lambda: dict(page.eval_on_selector_all(
                ".view[data-name=leaderboard] rect.bar", "bars => bars.map(b => [b.dataset.label, Number(b.dataset.value)])")) == expected,
                30, "the bars to follow the view")
            page.screenshot(path=str(tmp_path / "dashboard.png"), full_page=True)
            assert (tmp_path / "dashboard.png").stat().st_size > 20000

            # The SQL box runs a query and shows its rows.
            page.fill("#sql-input", "SELECT player, pops FROM leaderboard ORDER BY player")
            page.click("#sql-run")
            page.wait_for_selector("#sql-result table tbody tr", timeout=15000)
            shown = page.eval_on_selector_all("#sql-result tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
            assert shown == [[player, str(pops)] for player, pops in conn.execute("SELECT player, pops FROM leaderboard ORDER BY player").fetchall()]
            page.fill("#sql-input", "DELETE FROM leaderboard")
            page.click("#sql-run")
            page.wait_for_selector("#sql-result .error", timeout=15000)
            assert "25006" in page.text_content("#sql-result .error")
            assert errors == [], errors
            browser.close()
        conn.execute("DROP SINK board_sink")
        conn.execute("DROP MATERIALIZED VIEW color_windows")
        conn.execute("DROP MATERIALIZED VIEW leaderboard")
        conn.execute("DROP SOURCE events")


def test_a_backfill_shows_its_progress(server: SluiceServer) -> None:
    """A view created over a large table goes through its rows while CREATE waits; meanwhile
    another session sees its progress in rw_catalog.rw_ddl_progress (RisingWave's), and the
    dashboard's feed and /metrics show it too. Once CREATE returns, the view is no longer listed."""
    import threading

    with connect(server) as conn:
        conn.execute("CREATE TABLE big (k int, v int)")
        conn.execute("INSERT INTO big SELECT g % 1000, g FROM generate_series(1, 3000000) AS g")
        conn.execute("FLUSH")
        done = threading.Event()

        def create() -> None:
            with connect(server) as other:
                other.execute("CREATE MATERIALIZED VIEW big_sums AS SELECT k, sum(v) AS s, count(*) AS n FROM big GROUP BY k")
            done.set()
        creating = threading.Thread(target=create)
        creating.start()
        seen: list[float] = []
        states: list[dict] = []
        while not done.is_set():
            rows = conn.execute("SELECT ddl_id, ddl_statement, progress, initialized_at FROM rw_catalog.rw_ddl_progress").fetchall()
            for _, statement, progress, _ in rows:
                assert "big_sums" in statement and progress.endswith("%"), (statement, progress)
                seen.append(float(progress.rstrip("%")))
                if len(states) < 3:
                    state = json.loads(urllib.request.urlopen(f"{server.http_base}/api/state", timeout=10).read())
                    job = next((n["job"] for n in state["nodes"] if n["name"] == "big_sums"), None)
                    if job and job["backfilled_rows"] < job["backfill_rows"]:
                        states.append(job)
        creating.join(timeout=120)
        assert any(0 < p < 100 for p in seen), f"no progress seen between 0 and 100%: {seen[:5]}…"
        assert seen == sorted(seen), "progress went backwards"
        assert states and all(s["backfill_rows"] == 3000000 for s in states), states
        assert conn.execute("SELECT count(*) FROM rw_catalog.rw_ddl_progress").fetchone()[0] == 0
        assert conn.execute("SELECT count(*), sum(n) FROM big_sums").fetchone() == (1000, 3000000)
        assert _metrics(server)[("sluice_view_backfill_rows_remaining", (("view", "big_sums"),))] == 0
        conn.execute("DROP MATERIALIZED VIEW big_sums")
        conn.execute("DROP TABLE big")


def test_metrics_listen_moves_metrics_to_its_own_port() -> None:
    from harness.ports import free_port

    port = free_port()
    with SluiceServer(extra_args=["--metrics-listen", f"127.0.0.1:{port}"]) as server:
        status, content_type, text = _get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and content_type.startswith("text/plain")
        assert any(family.name == "sluice_memory_limit_bytes" for family in text_string_to_metric_families(text))
        # The dashboard's port serves the rest, not /metrics; the metrics port nothing else.
        assert _get(f"{server.http_base}/metrics")[0] == 404
        assert _get(f"{server.http_base}/health")[0] == 200
        assert _get(f"http://127.0.0.1:{port}/")[0] == 404


def test_long_dashboard_queries_keep_nobody_waiting(server: SluiceServer) -> None:
    """Two SQL-box queries that run until the dashboard's 10 s statement timeout: meanwhile the
    HTTP app, the SQL port and a third dashboard query each answer within a second."""
    import threading

    slow = "SELECT count(*) FROM generate_series(1, 100000) AS a, generate_series(1, 100000) AS b"
    results: list[dict] = []
    workers = [threading.Thread(target=lambda: results.append(_query(server, slow))) for _ in range(2)]
    for worker in workers:
        worker.start()
    # Four seconds of checks while they run (they run for ten).
    waits = []
    end = time.monotonic() + 4
    while time.monotonic() < end:
        began = time.monotonic()
        assert _get(f"{server.http_base}/health")[0] == 200
        assert _query(server, "SELECT 1 AS one")["rows"] == [[1]]
        with connect(server) as conn:
            assert conn.execute("SELECT 2").fetchone() == (2,)
        waits.append(time.monotonic() - began)
    assert max(waits) < 1.0, waits
    assert all(worker.is_alive() for worker in workers), "the slow queries ended too soon to show anything"
    for worker in workers:
        worker.join(timeout=60)
    assert [r["error"]["sqlstate"] for r in results] == ["57014", "57014"], results
