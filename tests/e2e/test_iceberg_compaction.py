"""A sink's table does not keep the small files each checkpoint writes: after a commit, at most
every `compaction_interval_sec`, the sink compacts them into large ones and expires old
snapshots, and readers see exactly the rows they saw before."""

from __future__ import annotations

from pathlib import Path

from pyiceberg.catalog.rest import RestCatalog

from harness import SluiceServer
from source_support import connect, wait_until


def test_small_files_are_compacted_and_the_rows_stay(tmp_path: Path) -> None:
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server, connect(server) as conn:
        conn.execute("CREATE TABLE t (id bigint, name varchar) APPEND ONLY")
        conn.execute("""CREATE SINK s FROM t WITH (connector = 'iceberg', type = 'append-only', database.name = 'compact',
            table.name = 't', warehouse.path = 'lake', commit_checkpoint_interval = '1', compaction_interval_sec = '2',
            snapshot_expiration_max_age_millis = '1000')""")
        catalog = RestCatalog("lake", uri=server.catalog_base, credential="root:secret", warehouse="lake",
                              **{"oauth2-server-uri": f"{server.catalog_base}/v1/oauth/tokens"})
        # Twenty commits of one small file each.
        for batch in range(20):
            conn.execute("INSERT INTO t SELECT g, 'row ' || g FROM generate_series(%s, %s) AS g", (batch * 100, batch * 100 + 99))
            conn.execute("FLUSH")
            wait_until(lambda: conn.execute("SELECT rows FROM sluice_sinks").fetchone()[0] >= (batch + 1) * 100, 30, f"batch {batch} committed")

        def compacted():
            table = catalog.load_table("compact.t")
            files = list(table.scan().plan_files())
            operations = [snapshot.summary.operation.value for snapshot in table.snapshots()]
            return (files, table) if "replace" in operations and len(files) < 5 else None

        # Another commit after the interval triggers a round.
        def commit_more():
            conn.execute("INSERT INTO t VALUES (-1, 'tick')")
            conn.execute("FLUSH")
            return compacted()
        wait_until(commit_more, 60, "a compaction of the small files")
        # Every row once, as the table the sink reads holds them (the last ticks committed too).
        expected = sorted(row[0] for row in conn.execute("SELECT id FROM t").fetchall())
        wait_until(lambda: sorted(row["id"] for row in catalog.load_table("compact.t").scan().to_arrow().to_pylist()) == expected, 30,
                   "the table's rows to equal the source's")
        assert len(catalog.load_table("compact.t").snapshots()) < 20, "old snapshots were expired"
        # The sink goes on committing on top of the compacted table.
        conn.execute("INSERT INTO t VALUES (100000, 'last')")
        conn.execute("FLUSH")
        wait_until(lambda: 100000 in {row["id"] for row in catalog.load_table("compact.t").scan().to_arrow().to_pylist()}, 30,
                   "a commit after compaction")
        assert conn.execute("SELECT last_error FROM sluice_sinks").fetchone() == (None,)
