"""Damaged state files and a full disk: a checkpoint file (`state/run-<n>.state`, which holds the
tables' rows and the views' state, or `state/MANIFEST-<n>`) with a flipped byte or cut short is
caught by its checksum and named, and recovery falls back to the previous checkpoint and the log
after it; a damaged log segment before the newest is refused with its path; a disk that fills up fails
the write with SQLSTATE 53100, keeps the server serving reads, and loses nothing acknowledged.

The same with views: a damaged newest checkpoint (a flipped byte in its run file or manifest, or
its run file cut short) is named in the recovery line with its reason, the views come back from
the one before it with the table writes logged after that one's cut, and they go on to write good
checkpoints; state checkpoints that fill a disk fail with their reason in `sluice_checkpoints`
while the server keeps serving, and after the disk grows the views come back from the last good
one.

Each test writes a fixed history and checks the recovered tables against it, and the views
against their queries over those tables (DuckDB's answer, or worked out here)."""

from __future__ import annotations

import re
import subprocess
from decimal import Decimal
from pathlib import Path

import duckdb
import psycopg
import pytest

from harness import SluiceServer
from source_support import connect, wait_until


def _run(server: SluiceServer, *statements: str) -> None:
    with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
        for statement in statements:
            connection.execute(statement)


def _rows(server: SluiceServer) -> list[tuple]:
    with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
        return sorted(connection.execute("SELECT id, note FROM kept").fetchall())


def _inserts(start: int, stop: int) -> list[str]:
    return [f"INSERT INTO kept VALUES ({i}, 'row {i}')" for i in range(start, stop)]


def _expected(stop: int) -> list[tuple]:
    return [(i, f"row {i}") for i in range(stop)]


def _two_checkpoints(data: Path) -> None:
    """Rows 0..29 with a checkpoint after 10 and after 20 (and no other): two checkpoints, and the
    log after each."""
    with SluiceServer(data_dir=data, extra_args=FLUSHED_ONLY) as server:
        _run(server, "CREATE TABLE kept (id int PRIMARY KEY, note varchar)", *_inserts(0, 10), "CHECKPOINT",
             *_inserts(10, 20), "CHECKPOINT", *_inserts(20, 30))
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
            done = connection.execute("SELECT epoch, status, tables FROM sluice_checkpoints WHERE kind = 'state' ORDER BY epoch").fetchall()
        assert len(done) == 2 and all(status == "done" and tables == 1 for _, status, tables in done), done
        server.kill()


# No barrier but the test's FLUSHes (and CREATE MATERIALIZED VIEW's): with the default checkpoint
# frequency each of them is a state checkpoint, so what each checkpoint holds is known.
FLUSHED_ONLY = ["--no-broker", "--barrier-interval-ms", "3600000"]


def _newest(data: Path, kind: str) -> Path:
    """The newest state checkpoint's manifest (`MANIFEST-`) or run file (`.state`)."""
    files = [p for p in (data / "state").iterdir() if p.name.startswith(kind) or p.name.endswith(kind)]
    return max(files, key=lambda p: int(p.name.split("-")[-1].split(".")[0]))


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at % len(data)] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["manifest", "run file", "run file cut short"])
def test_a_damaged_checkpoint_falls_back_to_the_previous_one(tmp_path: Path, damage: str) -> None:
    data = tmp_path / "data"
    _two_checkpoints(data)
    if damage == "manifest":
        _flip(_newest(data, "MANIFEST-"), 30)
    elif damage == "run file":
        _flip(_newest(data, ".state"), 40)
    else:
        victim = _newest(data, ".state")
        victim.write_bytes(victim.read_bytes()[:-9])
    with SluiceServer(data_dir=data) as server:
        assert _rows(server) == _expected(30)
        log = server.log()
        assert "passed over a damaged checkpoint" in log and ("checksum" in log or "truncated" in log), log
        # The table came from the checkpoint before, the rows after its cut from the log.
        assert "tables from state checkpoint 1, 20 log records replayed" in log, log


def test_a_damaged_older_log_segment_is_refused_with_its_path(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as server:
        _run(server, "CREATE TABLE kept (id int PRIMARY KEY, note varchar)", *_inserts(0, 20))
        server.kill()
    # A restart starts a new segment; the one written above is now an older one.
    with SluiceServer(data_dir=data) as server:
        _run(server, *_inserts(20, 25))
        server.kill()
    segments = sorted((data / "wal").iterdir())
    assert len(segments) >= 2, segments
    _flip(segments[0], 100)
    server = SluiceServer(data_dir=data, start_timeout=10)
    with pytest.raises(RuntimeError) as failure:
        server.start()
    assert segments[0].name in str(failure.value) and "damaged" in str(failure.value), str(failure.value)


def _small_disk(path: Path, size: str) -> Path:
    """`path`, made a tmpfs of `size` (the caller unmounts it)."""
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], check=True)
    return path


def test_a_full_disk_fails_writes_keeps_reads_and_loses_nothing(tmp_path: Path) -> None:
    data = _small_disk(tmp_path / "data", "3m")
    try:
        acknowledged = 0
        # No barrier but the statements' own: a state checkpoint running in the background would
        # take room on the small disk while the rows fill it and give it back when it fails or
        # is superseded, so what is free would change under the test.
        with SluiceServer(data_dir=data, extra_args=FLUSHED_ONLY) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
                connection.execute("CREATE TABLE kept (id int PRIMARY KEY, note varchar)")
                padding = "x" * 2000
                with pytest.raises(psycopg.Error) as failure:
                    for i in range(100_000):
                        connection.execute(f"INSERT INTO kept VALUES ({i}, 'row {i}{padding}')")
                        acknowledged = i + 1
                assert failure.value.sqlstate == "53100", failure.value
                assert acknowledged > 100
                # The server still answers, and reads see every acknowledged row and not the
                # one whose write failed (it was taken back).
                assert connection.execute("SELECT count(*) FROM kept").fetchone()[0] == acknowledged
                # The next write tries the log again and finds the disk still full (three times
                # the row that did not fit, so it cannot fit where that one did not).
                with pytest.raises(psycopg.Error) as again:
                    connection.execute(f"INSERT INTO kept VALUES (-1, 'after{padding * 3}')")
                assert again.value.sqlstate == "53100", again.value
                # Once the disk has room again, writes go on without a restart (and before any
                # checkpoint starts a new log segment).
                subprocess.run(["mount", "-o", "remount,size=64m", str(data)], check=True)
                connection.execute("INSERT INTO kept VALUES (-2, 'with room again')")
                assert connection.execute("SELECT note FROM kept WHERE id = -2").fetchone()[0] == "with room again"
                # A file takes the room: a checkpoint then fails, and says so.
                filler = data / "filler"
                with filler.open("wb", buffering=0) as out:
                    with pytest.raises(OSError):
                        while True:
                            out.write(b"\0" * (1 << 20))
                with pytest.raises(psycopg.Error) as checkpoint:
                    connection.execute("CHECKPOINT")
                assert checkpoint.value.sqlstate == "53100", checkpoint.value
                failed = connection.execute("SELECT status FROM sluice_checkpoints").fetchall()
                assert failed and failed[-1][0].startswith("failed:"), failed
                filler.unlink()
            server.kill()
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            with psycopg.connect(server.endpoint().conninfo, autocommit=True) as connection:
                ids = [row[0] for row in connection.execute("SELECT id FROM kept ORDER BY id").fetchall()]
            # Every acknowledged row (the one written once the disk had room first), and at most
            # the one whose write failed with it.
            assert ids[0] == -2, ids[:3]
            ids = ids[1:]
            assert ids[:acknowledged] == list(range(acknowledged)) and len(ids) <= acknowledged + 1, (len(ids), acknowledged)
            _run(server, "INSERT INTO kept VALUES (-1, 'after')", "CHECKPOINT")
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


# Views' state checkpoints (`<data-dir>/state/`: `run-<n>.state` and `MANIFEST-<n>`).

VIEWS = {
    "by_customer": "SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer",
    "joined": "SELECT orders.id, orders.amount, customers.region FROM orders JOIN customers ON orders.customer = customers.id",
    "by_region": """SELECT customers.region, count(*) AS n, sum(orders.amount) AS total
                    FROM orders JOIN customers ON orders.customer = customers.id GROUP BY customers.region""",
}


class _Shop:
    """Customers and orders: the statements of each phase, and the tables they leave."""

    def __init__(self) -> None:
        self.customers = {i: f"r{i % 3}" for i in range(8)}
        self.orders: dict[int, tuple[int, int]] = {}

    def setup(self) -> list[str]:
        return ["CREATE TABLE customers (id int PRIMARY KEY, region varchar)",
                "CREATE TABLE orders (id int PRIMARY KEY, customer int, amount int)",
                *(f"INSERT INTO customers VALUES ({i}, '{region}')" for i, region in self.customers.items()),
                *(f"CREATE MATERIALIZED VIEW {name} AS {sql}" for name, sql in VIEWS.items())]

    def phase(self, k: int) -> list[str]:
        """Phase k's writes, each changing at least one row: 30 orders (customer 8 has none in
        `customers`, so the joins leave its orders out), a customer moving region, orders' amounts
        updated and orders deleted."""
        statements = []
        for i in range(30 * k, 30 * k + 30):
            self.orders[i] = (i % 9, i)
            statements.append(f"INSERT INTO orders VALUES ({i}, {i % 9}, {i})")
        self.customers[k] = f"moved {k}"
        statements.append(f"UPDATE customers SET region = 'moved {k}' WHERE id = {k}")
        for i, (customer, amount) in self.orders.items():
            if i % 7 == k:
                self.orders[i] = (customer, amount + 100)
        statements.append(f"UPDATE orders SET amount = amount + 100 WHERE id % 7 = {k}")
        for i in [i for i in self.orders if i % 11 == k]:
            del self.orders[i]
        statements.append(f"DELETE FROM orders WHERE id % 11 = {k}")
        return statements

    def expected(self) -> dict[str, list[tuple]]:
        """The tables, and every view by DuckDB over them."""
        db = duckdb.connect()
        db.execute("CREATE TABLE customers (id int PRIMARY KEY, region varchar)")
        db.execute("CREATE TABLE orders (id int PRIMARY KEY, customer int, amount int)")
        db.executemany("INSERT INTO customers VALUES (?, ?)", list(self.customers.items()))
        db.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(i, *row) for i, row in self.orders.items()])
        queries = {"customers": "SELECT * FROM customers", "orders": "SELECT * FROM orders", **VIEWS}
        return {name: _sorted_ints(db.execute(sql).fetchall()) for name, sql in queries.items()}


def _sorted_ints(rows: list[tuple]) -> list[tuple]:
    """Rows with numbers as ints (sums come back as numeric or hugeint), sorted."""
    return sorted(tuple(int(v) if isinstance(v, (int, Decimal)) else v for v in row) for row in rows)


def _write(conn: psycopg.Connection, statements: list[str]) -> None:
    for statement in statements:
        cursor = conn.execute(statement)
        if statement.startswith(("UPDATE", "DELETE")):
            assert cursor.rowcount > 0, f"{statement} changed nothing"


def _shop_contents(conn: psycopg.Connection) -> dict[str, list[tuple]]:
    """The tables and views as the server shows them (after a FLUSH, every write is in the views)."""
    return {name: _sorted_ints(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in ["customers", "orders", *VIEWS]}


def _manifest(path: Path) -> tuple[int, tuple[int, int]]:
    """A state manifest's checkpoint number and the log position it was cut at (its text, then a CRC)."""
    fields = dict(line.split(" ", 1) for line in path.read_bytes()[:-4].decode().splitlines()[1:4])
    segment, offset = fields["log"].split()
    return int(fields["checkpoint"]), (int(segment), int(offset))


def _manifests(data: Path) -> list[Path]:
    """The state checkpoints' manifests, oldest first."""
    numbered = [(int(match[1]), path) for path in (data / "state").iterdir() if (match := re.fullmatch(r"MANIFEST-(\d+)", path.name))]
    return [path for _, path in sorted(numbered)]


def _log_end(data: Path) -> tuple[int, int]:
    """Where the next log record goes: the newest segment's number and size."""
    newest = max((data / "wal").glob("wal-*.log"))
    return int(newest.stem.removeprefix("wal-")), newest.stat().st_size


def _state_checkpoint(conn: psycopg.Connection, data: Path) -> int:
    """FLUSHes and waits until the state checkpoint of that barrier, cut at the end of the log
    (after every write so far), is on disk; returns its number."""
    conn.execute("FLUSH")
    end = _log_end(data)

    def written():
        manifests = _manifests(data)
        if manifests:
            number, cut = _manifest(manifests[-1])
            return number if cut == end else None
    return wait_until(written, 30, f"a state checkpoint cut at log position {end}")


@pytest.mark.parametrize("damage", ["run file", "manifest", "run file cut short"])
def test_a_damaged_newest_view_state_checkpoint_falls_back_to_the_previous_one(tmp_path: Path, damage: str) -> None:
    data, shop = tmp_path / "data", _Shop()
    with SluiceServer(data_dir=data, extra_args=FLUSHED_ONLY) as server:
        with connect(server) as conn:
            _write(conn, shop.setup())
            _write(conn, shop.phase(0))
            previous = _state_checkpoint(conn, data)
            after_previous = shop.phase(1)
            _write(conn, after_previous)
            newest = _state_checkpoint(conn, data)
            assert _shop_contents(conn) == shop.expected()
            in_the_log_only = shop.phase(2)
            _write(conn, in_the_log_only)
            after_previous += in_the_log_only
        server.kill()
    manifests = _manifests(data)
    # The two kept checkpoints are the test's, and the newest holds writes the one before does not.
    assert [_manifest(path)[0] for path in manifests] == [previous, newest], manifests
    assert _manifest(manifests[0])[1] < _manifest(manifests[1])[1]
    victim = data / "state" / (f"MANIFEST-{newest}" if damage == "manifest" else f"run-{newest}.state")
    if damage == "run file cut short":
        victim.write_bytes(victim.read_bytes()[:-9])
    else:
        _flip(victim, victim.stat().st_size // 2)
    with SluiceServer(data_dir=data, extra_args=FLUSHED_ONLY) as server:
        log = server.log()
        # The damaged file is named with the reason, and the views come from the checkpoint
        # before it, the writes logged after that one's cut sent into them.
        assert (f"passed over a damaged checkpoint (state: file {victim} fails its checksum), "
                f"views restored from state checkpoint {previous}, {len(after_previous)} table writes after it replayed into them") in log, log
        with connect(server) as conn:
            conn.execute("FLUSH")
            assert _shop_contents(conn) == shop.expected()
            # The views go on from there, and the next checkpoint is good.
            _write(conn, shop.phase(3))
            latest = _state_checkpoint(conn, data)
            assert _shop_contents(conn) == shop.expected()
        server.kill()
    # The damaged checkpoint is no longer one of the two kept.
    assert not victim.exists(), sorted((data / "state").iterdir())
    with SluiceServer(data_dir=data, extra_args=FLUSHED_ONLY) as server:
        log = server.log()
        assert f"views restored from state checkpoint {latest}, 0 table writes after it" in log and "passed over" not in log, log
        with connect(server) as conn:
            conn.execute("FLUSH")
            assert _shop_contents(conn) == shop.expected()


WIDE_VIEWS = {
    "by_note": "SELECT note, count(*) AS n, sum(id) AS total FROM wide GROUP BY note",
    "by_tens": "SELECT id % 10 AS k, count(*) AS n, sum(id) AS total FROM wide GROUP BY id % 10",
}


def _note(i: int) -> str:
    """Row i's note: 2 KB, and a group of its own in `by_note`."""
    return f"row {i} " + "x" * 2000


def _wide_views_over(rows: list[tuple[int, str]]) -> dict[str, list[tuple]]:
    """Both views' rows over the table's `(id, note)` rows (every note is its own group)."""
    tens: dict[int, tuple[int, int]] = {}
    for i, _ in rows:
        n, total = tens.get(i % 10, (0, 0))
        tens[i % 10] = (n + 1, total + i)
    return {"by_note": sorted((note, 1, i) for i, note in rows), "by_tens": sorted((k, n, total) for k, (n, total) in tens.items())}


def _wide_views(conn: psycopg.Connection) -> dict[str, list[tuple]]:
    conn.execute("FLUSH")
    return {name: _sorted_ints(conn.execute(f"SELECT * FROM {name}").fetchall()) for name in WIDE_VIEWS}


def test_a_full_disk_fails_view_state_checkpoints_keeps_serving_and_loses_nothing(tmp_path: Path) -> None:
    data = _small_disk(tmp_path / "data", "8m")
    try:
        acknowledged = 0
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            with connect(server) as conn:
                conn.execute("CREATE TABLE wide (id int PRIMARY KEY, note varchar)")
                for name, sql in WIDE_VIEWS.items():
                    conn.execute(f"CREATE MATERIALIZED VIEW {name} AS {sql}")
                # Every note is a group of its own, held by the view and by the aggregate: the
                # state checkpoints (one a second) outgrow the log and fill the disk; writes go on
                # until the log cannot append either.
                with pytest.raises(psycopg.Error) as failure:
                    for i in range(100_000):
                        conn.execute(f"INSERT INTO wide VALUES ({i}, '{_note(i)}')")
                        acknowledged = i + 1
                assert failure.value.sqlstate == "53100", failure.value
                assert acknowledged > 500, acknowledged
                # A state checkpoint failed, with its reason; the server lives and serves reads.
                failed = wait_until(lambda: conn.execute(
                    "SELECT epoch, status FROM sluice_checkpoints WHERE kind = 'state' AND status LIKE 'failed:%'").fetchall(),
                    30, "a failed state checkpoint in sluice_checkpoints")
                # (The disk fills while a run file or, after it, the manifest naming it is written.)
                assert all(status.startswith((f'failed: could not write "{data}/state/run-', f'failed: could not write "{data}/state/MANIFEST-'))
                           and status.endswith(": No space left on device") for (_, status) in failed), failed
                # Written or failed, a state checkpoint is named by its barrier's epoch.
                epochs = [epoch for (epoch,) in conn.execute(
                    "SELECT epoch FROM sluice_checkpoints WHERE kind = 'state' ORDER BY started_at").fetchall()]
                assert all(epoch > 0 for (epoch, _) in failed), failed
                assert epochs == sorted(set(epochs)), epochs
                assert server.process.poll() is None
                assert "sluice: state checkpoint failed: could not write" in server.log()
                assert conn.execute("SELECT count(*) FROM wide").fetchone()[0] >= acknowledged
                # The views show every acknowledged row (and perhaps the one whose write failed).
                views = _wide_views(conn)
                assert views in ([_wide_views_over([(i, _note(i)) for i in range(count)]) for count in (acknowledged, acknowledged + 1)])
            server.kill()
        newest = _manifest(_manifests(data)[-1])[0]
        subprocess.run(["mount", "-o", "remount,size=64m", str(data)], check=True)
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            assert f"views restored from state checkpoint {newest}," in server.log(), server.log()
            with connect(server) as conn:
                rows = sorted(conn.execute("SELECT id, note FROM wide").fetchall())
                # Every acknowledged row, and at most the one whose write failed with it.
                assert [i for i, _ in rows[:acknowledged]] == list(range(acknowledged)) and len(rows) <= acknowledged + 1, (len(rows), acknowledged)
                assert all(text == _note(i) for i, text in rows)
                assert _wide_views(conn) == _wide_views_over(rows)
                # With room again, the views' checkpoints are written again, and come back.
                rows.append((1_000_000, _note(1_000_000)))
                conn.execute(f"INSERT INTO wide VALUES (1000000, '{_note(1_000_000)}')")
                assert _state_checkpoint(conn, data) > newest
                assert _wide_views(conn) == _wide_views_over(rows)
            server.kill()
        latest = _manifest(_manifests(data)[-1])[0]
        with SluiceServer(data_dir=data, extra_args=["--no-broker"]) as server:
            assert f"views restored from state checkpoint {latest}, 0 table writes after it" in server.log(), server.log()
            with connect(server) as conn:
                assert _wide_views(conn) == _wide_views_over(rows)
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)
