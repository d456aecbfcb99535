"""Views whose state only grows are accepted, as RisingWave accepts them, with a NOTICE saying
which operator keeps every row and how to bound it; EMIT ON WINDOW CLOSE, which promises that
state goes, refuses a join that keeps every row (0A000). Views whose state is bounded (joins
bounded in event time over watermarks, joins of tables, lookup joins) get no notice."""

from __future__ import annotations

import psycopg
import pytest

from harness import SluiceServer

SOURCES = [
    "CREATE SOURCE bids (auction int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH (connector = 'datagen', datagen.rows.per.second = '5')",
    "CREATE SOURCE auctions (id int, ts timestamptz, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH (connector = 'datagen', datagen.rows.per.second = '5')",
    "CREATE SOURCE people (id int, ts timestamptz) WITH (connector = 'datagen', datagen.rows.per.second = '5')",
    "CREATE TABLE sellers (id int PRIMARY KEY, name varchar)",
    "CREATE TABLE items (id int PRIMARY KEY, seller int)",
]

CASES = {
    # Both sources kept whole: no condition bounds the join in time.
    "SELECT b.auction, a.ts FROM bids b JOIN auctions a ON b.auction = a.id": ["the join keeps every row of both of its inputs"],
    # An interval join over two watermarks: each side's rows go once the other's watermark passes them.
    "SELECT b.auction FROM bids b JOIN auctions a ON b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND": [],
    # The bound on bids reads people's time, which has no watermark: bids stay.
    "SELECT b.auction FROM bids b JOIN people p ON b.auction = p.id AND b.ts BETWEEN p.ts AND p.ts + INTERVAL '1' SECOND":
        ["the join keeps every row of its left input"],
    # Tables: their rows are deleted, so a join of them is as big as they are.
    "SELECT s.name, i.id FROM sellers s JOIN items i ON s.id = i.seller": [],
    # A lookup keeps no stream rows.
    "SELECT b.auction, s.name FROM bids b JOIN sellers FOR SYSTEM_TIME AS OF PROCTIME() s ON b.auction = s.id": [],
    "SELECT id, row_number() OVER (PARTITION BY id ORDER BY ts) AS n FROM people": ["the window function keeps every row of its input"],
    # A temporal filter deletes rows as they age: the window function's input is bounded.
    "SELECT id, row_number() OVER (PARTITION BY id ORDER BY ts) AS n FROM people WHERE ts > now() - INTERVAL '1' MINUTE": [],
}


@pytest.fixture(scope="module")
def conn():
    with SluiceServer() as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
            for statement in SOURCES:
                connection.execute(statement)
            yield connection


@pytest.mark.parametrize("query", list(CASES))
def test_views_whose_state_only_grows_get_a_notice(conn: psycopg.Connection, query: str) -> None:
    notices: list[tuple[str, str, str]] = []

    def keep(diagnostic: psycopg.errors.Diagnostic) -> None:
        # (The diagnostic is readable only inside the handler.)
        notices.append((diagnostic.severity_nonlocalized, diagnostic.message_primary, diagnostic.message_hint))
    conn.add_notice_handler(keep)
    try:
        name = f"v{abs(hash(query)) % 10**8}"
        conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {query}")
    finally:
        conn.remove_notice_handler(keep)
    assert [message.split(":")[0].split(",")[0] for _, message, _ in notices] == CASES[query]
    for severity, _, hint in notices:
        assert severity == "NOTICE"
        assert hint and "temporal filter" in hint


def test_emit_on_window_close_refuses_a_join_that_keeps_every_row(conn: psycopg.Connection) -> None:
    with pytest.raises(psycopg.errors.FeatureNotSupported) as refused:
        conn.execute("""CREATE MATERIALIZED VIEW closed AS
            WITH j AS (SELECT b.auction, b.ts FROM bids b JOIN auctions a ON b.auction = a.id)
            SELECT window_start, count(*) AS n FROM TUMBLE(j, ts, INTERVAL '1' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE""")
    assert "the join keeps every row" in refused.value.diag.message_primary
    assert "BETWEEN" in refused.value.diag.message_hint
    # Bounded in time, the same view is made.
    conn.execute("""CREATE MATERIALIZED VIEW closed AS
        WITH j AS (SELECT b.auction, b.ts FROM bids b JOIN auctions a
                   ON b.auction = a.id AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND)
        SELECT window_start, count(*) AS n FROM TUMBLE(j, ts, INTERVAL '1' SECOND) GROUP BY window_start EMIT ON WINDOW CLOSE""")
