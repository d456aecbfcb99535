"""Upsert Iceberg sinks: after inserts, updates and deletes upstream, across a kill -9, the
Iceberg table holds exactly the view's rows.

An upsert sink writes each epoch as a data file of the last versions of the keys it touched and
a position-delete file of where their earlier versions lie (merge on read): it keeps the
position of every row it wrote in a state table. pyiceberg (0.12), which cannot read equality
deletes, reads the table at once, as DuckDB's iceberg extension and Sluice's own Iceberg source
do. Two sinks of the same view:
- one without compaction: no equality delete is ever written;
- one compacted every second while it writes: a compaction that rewrites files between an
  epoch's prepare and its commit moves the rows the epoch deletes, and the sink finds them in
  the new files (and its index follows them) instead of falling back to equality deletes.

The oracle is a model of the base table kept in Python: the expected view is computed from it
here, independently of Sluice, and the view itself must equal it too."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from pyiceberg.catalog.rest import RestCatalog

from harness import SluiceServer
from harness.ports import free_port
from duckdb_support import duckdb_with
from source_support import connect, wait_until

NAMES = [f"player-{i:02}" for i in range(25)]


def _expected(model: dict[int, tuple[str, int]]) -> list[tuple]:
    groups: dict[str, list[int]] = defaultdict(list)
    for name, score in model.values():
        groups[name].append(score)
    return sorted((name, len(scores), sum(scores)) for name, scores in groups.items())


def _catalog(server: SluiceServer) -> RestCatalog:
    base = server.catalog_base
    return RestCatalog("lake", uri=base, credential="root:secret", warehouse="lake", **{"oauth2-server-uri": f"{base}/v1/oauth/tokens"})


def _duckdb_rows(server: SluiceServer) -> list[tuple]:
    location = _catalog(server).load_table("up.merged").metadata_location
    with duckdb_with("iceberg", "avro") as con:
        return sorted(con.execute(f"SELECT name, n, total FROM iceberg_scan('{location}')").fetchall())


def _pyiceberg_rows(server: SluiceServer, name: str) -> list[tuple]:
    """The table's rows as pyiceberg reads them (it refuses a table with equality deletes)."""
    rows = _catalog(server).load_table(f"up.{name}").scan().to_arrow().to_pylist()
    return sorted((row["name"], row["n"], row["total"]) for row in rows)


def _delete_files(server: SluiceServer, name: str) -> dict[int, int]:
    """The table's live delete files by content (1 position, 2 equality)."""
    counts: dict[int, int] = defaultdict(int)
    for file in _catalog(server).load_table(f"up.{name}").inspect.files().to_pylist():
        if file["content"] != 0:
            counts[file["content"]] += 1
    return dict(counts)


def _read_by_every_reader(server: SluiceServer, expected: list[tuple]) -> None:
    """Once the merge-on-read table equals `expected` for DuckDB, pyiceberg reads both tables
    equal to it too, at once, and neither holds an equality delete."""
    wait_until(lambda: _duckdb_rows(server) == expected, 60, "DuckDB to read the view's rows from the merge-on-read table")
    wait_until(lambda: _pyiceberg_rows(server, "compacted") == expected, 60, "the compacted sink to commit the view's rows")
    assert _pyiceberg_rows(server, "merged") == expected
    assert _delete_files(server, "merged").get(2, 0) == 0
    assert _delete_files(server, "compacted").get(2, 0) == 0


def _changes(rng: random.Random, model: dict[int, tuple[str, int]], next_id: int, count: int) -> tuple[list[str], int]:
    """`count` random statements applied to `model` (inserts, score and name updates, a row
    moving between groups, and deletes), then the deletion of a whole group."""
    statements = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.45 or not model:
            name, score = rng.choice(NAMES), rng.randint(1, 100)
            model[next_id] = (name, score)
            statements.append(f"INSERT INTO t VALUES ({next_id}, '{name}', {score})")
            next_id += 1
        elif kind < 0.7:
            key = rng.choice(sorted(model))
            score = rng.randint(1, 100)
            model[key] = (model[key][0], score)
            statements.append(f"UPDATE t SET score = {score} WHERE id = {key}")
        elif kind < 0.85:
            key = rng.choice(sorted(model))
            name = rng.choice(NAMES)
            model[key] = (name, model[key][1])
            statements.append(f"UPDATE t SET name = '{name}' WHERE id = {key}")
        else:
            key = rng.choice(sorted(model))
            del model[key]
            statements.append(f"DELETE FROM t WHERE id = {key}")
    # A whole group goes: its key's last change in the epoch is a delete.
    name = rng.choice(NAMES)
    for key in [key for key, (owner, _) in model.items() if owner == name]:
        del model[key]
    statements.append(f"DELETE FROM t WHERE name = '{name}'")
    return statements, next_id


def test_upsert_tables_equal_the_view_after_updates_deletes_and_a_crash(tmp_path: Path) -> None:
    data, catalog_port = tmp_path / "data", free_port()
    args = ["--barrier-interval-ms", "100"]
    rng = random.Random(1125)
    model: dict[int, tuple[str, int]] = {}
    next_id = 1
    with SluiceServer(data_dir=data, catalog_port=catalog_port, extra_args=args) as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar, score int)")
        conn.execute("CREATE MATERIALIZED VIEW totals AS SELECT name, count(*) AS n, sum(score) AS total FROM t GROUP BY name")
        for sink, extra in (("merged", "enable_compaction = 'false'"), ("compacted", "compaction_interval_sec = '1'")):
            conn.execute(f"""CREATE SINK {sink} FROM totals WITH (connector = 'iceberg', type = 'upsert', primary_key = 'name',
                database.name = 'up', table.name = '{sink}', warehouse.path = 'lake', commit_checkpoint_interval = '1', {extra})""")
        # Rounds of changes; within a round many land in one epoch, so a key changes several
        # times before a barrier and the sink must merge them.
        for _ in range(6):
            statements, next_id = _changes(rng, model, next_id, 60)
            for statement in statements:
                conn.execute(statement)
            conn.execute("FLUSH")
            # pyiceberg reads both tables after every round, without waiting for a compaction.
            expected = _expected(model)
            assert sorted(conn.execute("SELECT name, n, total FROM totals").fetchall()) == expected
            _read_by_every_reader(server, expected)
        server.kill()
        server.process.wait(timeout=10)

    with SluiceServer(data_dir=data, catalog_port=catalog_port, extra_args=args) as server, connect(server) as conn:
        for _ in range(3):
            statements, next_id = _changes(rng, model, next_id, 60)
            for statement in statements:
                conn.execute(statement)
            conn.execute("FLUSH")
        expected = _expected(model)
        assert sorted(conn.execute("SELECT name, n, total FROM totals").fetchall()) == expected
        _read_by_every_reader(server, expected)
        # Rounds changed rows earlier rounds committed: deleted by position.
        assert _delete_files(server, "merged").get(1, 0) > 0
        conn.execute("CREATE SOURCE merged_back WITH (connector = 'iceberg', database.name = 'up', table.name = 'merged', warehouse.path = 'lake')")
        assert sorted(conn.execute("SELECT name, n, total FROM merged_back").fetchall()) == expected
        compactions = [s for s in _catalog(server).load_table("up.compacted").snapshots() if s.summary and s.summary.operation.value == "replace"]
        assert compactions, "the compacted sink's table was never compacted"
        assert sorted(conn.execute("SELECT name, n, total FROM totals").fetchall()) == _expected(model)
        table = _catalog(server).load_table("up.merged")
        epochs = [s.summary["sluice.epoch"] for s in table.snapshots() if s.summary and "sluice.epoch" in s.summary.additional_properties]
        assert len(epochs) == len(set(epochs)), f"an epoch was committed twice: {sorted(epochs)}"
        errors = conn.execute("SELECT name, last_error FROM sluice_sinks WHERE last_error IS NOT NULL").fetchall()
        assert errors == [], errors


def test_an_epoch_past_the_upsert_buffer_commits_in_parts(tmp_path: Path) -> None:
    """A 32 MiB memory limit gives upsert sinks a 2 MiB buffer: one statement updating 200,000
    rows is one epoch far past it, which the sink writes as several parts, each its own snapshot
    in one catalog commit. A later part's position deletes remove an earlier part's versions,
    so the table still holds each key once, with its last version, for pyiceberg too."""
    args = ["--barrier-interval-ms", "100", "--memory-limit", "32MB"]
    with SluiceServer(data_dir=tmp_path / "data", extra_args=args) as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar, score int)")
        conn.execute("""CREATE SINK s FROM t WITH (connector = 'iceberg', type = 'upsert', primary_key = 'id',
            database.name = 'up', table.name = 'big', warehouse.path = 'lake', commit_checkpoint_interval = '1',
            enable_compaction = 'false')""")
        conn.execute("INSERT INTO t SELECT g, 'name-' || (g % 1000), g FROM generate_series(1, 200000) AS g")
        conn.execute("FLUSH")
        # Every row twice in one statement: an update, then a delete of a tenth of them.
        conn.execute("UPDATE t SET score = score * 3, name = 'moved-' || (id % 77)")
        conn.execute("DELETE FROM t WHERE id % 10 = 0")
        conn.execute("FLUSH")
        expected = sorted((g, f"moved-{g % 77}", g * 3) for g in range(1, 200001) if g % 10 != 0)
        assert sorted(conn.execute("SELECT id, name, score FROM t").fetchall()) == expected

        def duckdb_rows() -> list[tuple]:
            location = _catalog(server).load_table("up.big").metadata_location
            with duckdb_with("iceberg", "avro") as con:
                return sorted(con.execute(f"SELECT id, name, score FROM iceberg_scan('{location}')").fetchall())
        wait_until(lambda: duckdb_rows() == expected, 60, "DuckDB to read the table's rows")
        table = _catalog(server).load_table("up.big")
        assert sorted((r["id"], r["name"], r["score"]) for r in table.scan().to_arrow().to_pylist()) == expected
        parts = [s.summary["sluice.part"] for s in table.snapshots() if s.summary and "sluice.part" in s.summary.additional_properties]
        assert len(parts) >= 3, f"the 400,000-change epoch fit in {len(parts)} parts of a 2 MiB buffer"
        tags = [(s.summary["sluice.epoch"], s.summary.additional_properties.get("sluice.part"))
                for s in table.snapshots() if s.summary and "sluice.epoch" in s.summary.additional_properties]
        assert len(tags) == len(set(tags)), f"a part was committed twice: {tags}"
        errors = conn.execute("SELECT name, last_error FROM sluice_sinks WHERE last_error IS NOT NULL").fetchall()
        assert errors == [], errors
