"""CREATE SINK as RisingWave writes it, with the connector every build has (`blackhole`): the
sink's type rules and their SQLSTATEs, SHOW SINKS, `sluice_sinks` and `rw_sinks`, DROP SINK and
its dependencies, and a sink that comes back after a kill -9 and goes on taking rows."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from harness import SluiceServer
from source_support import connect, wait_until


def _sqlstate(conn: psycopg.Connection, statement: str) -> str:
    with pytest.raises(psycopg.Error) as failure:
        conn.execute(statement)
    return failure.value.sqlstate


def _rows_in(conn: psycopg.Connection, name: str) -> int | None:
    row = conn.execute("SELECT rows_in FROM sluice_sinks WHERE name = %s", (name,)).fetchone()
    return None if row is None else row[0]


def test_sink_statements_and_their_errors(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (k int, v int)")
        conn.execute("INSERT INTO t VALUES (1, 2), (1, 3), (2, 5)")
        conn.execute("CREATE MATERIALIZED VIEW m AS SELECT k, sum(v) AS s FROM t GROUP BY k")
        # An append-only sink over a view that updates rows needs force_append_only.
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'iceberg', type = 'append-only')") == "22023"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'iceberg', type = 'upsert')") == "22023"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'iceberg')") == "22023"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'iceberg', type = 'merge')") == "22023"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'iceberg', type = 'upsert', primary_key = 'nope')") == "42703"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'nowhere', type = 'upsert', primary_key = 'k')") == "0A000"
        assert _sqlstate(conn, "CREATE SINK bad FROM m WITH (connector = 'blackhole', commit_checkpoint_interval = '0')") == "22023"
        assert _sqlstate(conn, "CREATE SINK bad FROM missing WITH (connector = 'blackhole')") == "42P01"
        assert conn.execute("SHOW SINKS").fetchall() == []

        conn.execute("CREATE SINK everything FROM m WITH (connector = 'blackhole')")
        conn.execute("CREATE SINK IF NOT EXISTS everything FROM m WITH (connector = 'blackhole')")
        assert _sqlstate(conn, "CREATE SINK everything FROM m WITH (connector = 'blackhole')") == "42P07"
        conn.execute("CREATE SINK big AS SELECT k, v FROM t WHERE v > 2 WITH (connector = 'blackhole')")
        assert sorted(conn.execute("SHOW SINKS").fetchall()) == [("big",), ("everything",)]
        assert sorted(conn.execute("SELECT name, sink_type FROM rw_sinks").fetchall()) == [("big", "APPEND_ONLY"), ("everything", "APPEND_ONLY")]
        # A sink is not a relation a query reads.
        assert _sqlstate(conn, "SELECT * FROM everything") == "42809"
        # The sinks took the rows their inputs held, then each change.
        assert wait_until(lambda: _rows_in(conn, "everything") == 2, 10, "the sink to take the view's rows")
        assert wait_until(lambda: _rows_in(conn, "big") == 2, 10, "the sink to take the table's rows")
        conn.execute("INSERT INTO t VALUES (3, 9)")
        conn.execute("FLUSH")
        assert wait_until(lambda: _rows_in(conn, "big") == 3, 10, "the sink to take the new row")
        # The view's sink took an insert for the new key.
        assert wait_until(lambda: _rows_in(conn, "everything") == 3, 10, "the view's sink to take the new key")

        # A view a sink reads is dropped only with CASCADE.
        assert _sqlstate(conn, "DROP MATERIALIZED VIEW m") == "2BP01"
        conn.execute("DROP SINK big")
        assert conn.execute("SHOW SINKS").fetchall() == [("everything",)]
        conn.execute("DROP MATERIALIZED VIEW m CASCADE")
        assert conn.execute("SHOW SINKS").fetchall() == []
        assert conn.execute("SELECT count(*) FROM sluice_sinks").fetchone() == (0,)


def test_a_sink_comes_back_after_kill_9(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SluiceServer(data_dir=data_dir) as server:
        with connect(server) as conn:
            conn.execute("CREATE TABLE t (k int, v int)")
            conn.execute("CREATE SINK s AS SELECT * FROM t WITH (connector = 'blackhole')")
            conn.execute("INSERT INTO t VALUES (1, 1)")
            conn.execute("CHECKPOINT")
        server.kill()
    with SluiceServer(data_dir=data_dir) as server, connect(server) as conn:
        assert conn.execute("SHOW SINKS").fetchall() == [("s",)]
        conn.execute("INSERT INTO t VALUES (2, 2), (3, 3)")
        conn.execute("FLUSH")
        # Restored from the checkpoint: it takes the new rows only.
        assert wait_until(lambda: _rows_in(conn, "s") == 2, 10, "the restored sink to take the new rows")
        assert conn.execute("SELECT state, last_error FROM sluice_sinks WHERE name = 's'").fetchone() in {("running", None), ("committed", None)}


def test_explain_shows_the_sink_and_the_materialize_as_plan_nodes(tmp_path: Path) -> None:
    """A sink's and a view's plans end in a node of their own, which EXPLAIN shows first."""
    with SluiceServer(data_dir=tmp_path / "data") as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (k int, v int)")
        sink = [row[0] for row in conn.execute("""EXPLAIN CREATE SINK s AS SELECT k, sum(v) AS total FROM t GROUP BY k
            WITH (connector = 'blackhole', type = 'upsert', primary_key = 'k', force_append_only = 'false')""").fetchall()]
        assert sink[0] == "StreamSink { sink: s, connector: blackhole, type: upsert, primary key: [k] }", sink
        assert sink[1].strip().startswith("└─StreamHashAgg"), sink
        view = [row[0] for row in conn.execute("EXPLAIN CREATE MATERIALIZED VIEW m AS SELECT k FROM t WHERE v > 1").fetchall()]
        assert view[0] == "StreamMaterialize { view: m, columns: [k] }", view
        # EXPLAIN creates nothing.
        assert conn.execute("SELECT count(*) FROM rw_sinks").fetchone() == (0,)
        conn.execute("CREATE SINK s AS SELECT k, sum(v) AS total FROM t GROUP BY k WITH (connector = 'blackhole', type = 'upsert', primary_key = 'k', force_append_only = 'false')")
        conn.execute("INSERT INTO t VALUES (1, 2), (2, 3)")
        conn.execute("FLUSH")
        assert wait_until(lambda: _rows_in(conn, "s") == 2, 10, "the sink to take the rows")
