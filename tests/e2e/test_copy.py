"""COPY … FROM STDIN and COPY … TO STDOUT through real clients: psycopg's `cursor.copy()`
(simple query protocol), pg8000 (extended protocol: Parse/Bind/Execute, a Sync before the
data), psql's `\\copy`, and a raw socket for CopyFail. COPY TO output is compared byte for
byte with PostgreSQL's for the same table; a 2-million-row load checks that the server's
memory stays bounded while the data streams in.

SLUICE_E2E_TARGET=postgres runs the client tests against PostgreSQL itself, to check them."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pg8000.native
import psycopg
import pytest

from harness import Endpoint, SluiceServer
from psql_client import run_psql
from wire import WireClient, cstring, message

TYPED_DDL = """CREATE TABLE {name} (
    id integer NOT NULL, big bigint, label varchar, score double precision, ok boolean,
    amount numeric(10, 2), day date, at timestamp, at_tz timestamptz, span interval
)"""

TYPED_ROWS = """INSERT INTO {name} VALUES
    (1, 9007199254740993, 'plain', 1.5, true, 12.34, '2024-05-01', '2024-05-01 12:34:56', '2024-05-01 12:34:56.789+00', '1 day 02:00:00'),
    (2, -1, E'tab\\there, "quoted", new\\nline \\\\ back', -0.1, false, -0.5, '1999-12-31', '1999-12-31 23:59:59.5', '2000-01-01 00:00:00+00', '-3 mons'),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, 0, '', 1.25e10, true, 0, '2024-02-29', '2024-02-29 00:00:00', '2024-02-29 00:00:00+00', '00:00:01.25'),
    (5, 42, 'ünïcødé ✓ \\N', 3.0, false, 99999999.99, '0001-01-01', '2024-01-01 00:00:00', '2024-01-01 00:00:00+00', '1 year')"""


def _copy_out(conn: psycopg.Connection, statement: str) -> bytes:
    with conn.cursor() as cur:
        with cur.copy(statement) as copy:
            return b"".join(bytes(block) for block in copy)


@pytest.fixture
def oracle(pg_oracle):
    endpoint = pg_oracle.create_database("copy")
    try:
        yield endpoint
    finally:
        pg_oracle.drop_database(endpoint)


def test_psycopg_writes_rows_and_reads_them_back(conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (id int, label varchar, score double precision)")
    rows = [
        (1, "plain", 1.5), (2, None, None), (3, "tab\there", -2.0), (4, "new\nline\r\n", 0.0),
        (5, "back\\slash \\N", 1e-9), (6, "", 3.25), (7, "ünïcødé ✓", 7.0), (8, "\\.", 8.0),
    ]
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table_name} (id, label, score) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        assert cur.statusmessage == f"COPY {len(rows)}"
        assert cur.rowcount == len(rows)
    assert conn.execute(f"SELECT id, label, score FROM {table_name} ORDER BY id").fetchall() == rows
    with conn.cursor() as cur:
        with cur.copy(f"COPY (SELECT id, label, score FROM {table_name} ORDER BY id) TO STDOUT") as copy:
            copy.set_types(["int4", "text", "float8"])
            assert list(copy.rows()) == rows
    # CSV both ways: the rows survive a second table.
    conn.execute(f"CREATE TABLE {table_name}_csv (id int, label varchar, score double precision)")
    data = _copy_out(conn, f"COPY {table_name} TO STDOUT WITH (FORMAT csv)")
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table_name}_csv FROM STDIN WITH (FORMAT csv)") as copy:
            copy.write(data)
    assert conn.execute(f"SELECT id, label, score FROM {table_name}_csv ORDER BY id").fetchall() == rows


def test_text_format_escapes_nulls_and_end_marker(conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (id int, a varchar, b varchar)")
    data = (
        b"1\t\\N\tnull\n"
        b"2\t\\t\\n\\r\\\\\\b\\f\\v\tescapes\n"
        b"3\t\\101\\x42\\x4a\\7\tcodes\n"
        b"4\ta\\\tb\tdelimiter\n"
        b"5\t\\N\\N\tnot null\n"
        b"6\t\tempty\n"
        b"\\.\n"
        b"7\tafter\tthe end marker\n"
    )
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table_name} FROM STDIN") as copy:
            # Cut at awkward places: inside escapes and line ends.
            for start in range(0, len(data), 7):
                copy.write(data[start:start + 7])
        assert cur.statusmessage == "COPY 6"
    assert conn.execute(f"SELECT id, a, b FROM {table_name} ORDER BY id").fetchall() == [
        (1, None, "null"), (2, "\t\n\r\\\b\f\v", "escapes"), (3, "ABJ\x07", "codes"), (4, "a\tb", "delimiter"),
        (5, "NN", "not null"), (6, "", "empty"),
    ]
    assert _copy_out(conn, f"COPY (SELECT a, b FROM {table_name} WHERE id IN (1, 2, 4) ORDER BY id) TO STDOUT") == (
        b"\\N\tnull\n\\t\\n\\r\\\\\\b\\f\\v\tescapes\na\\tb\tdelimiter\n")


def test_line_ends_follow_the_first_line(conn: psycopg.Connection, table_name: str) -> None:
    """CRLF data loads; a carriage return in data whose lines end in LF is refused (22P04)."""
    conn.execute(f"CREATE TABLE {table_name} (id int, a varchar)")
    with conn.cursor() as cur:
        with cur.copy(f"COPY {table_name} FROM STDIN") as copy:
            copy.write(b"1\tone\r\n2\tcr\\r\r\n")
        with cur.copy(f"COPY {table_name} FROM STDIN (FORMAT csv)") as copy:
            copy.write(b'3,"in\r\nquotes"\r\n')
    assert conn.execute(f"SELECT id, a FROM {table_name} ORDER BY id").fetchall() == [(1, "one"), (2, "cr\r"), (3, "in\r\nquotes")]
    with pytest.raises(psycopg.Error) as failure:
        with conn.cursor() as cur, cur.copy(f"COPY {table_name} FROM STDIN") as copy:
            copy.write(b"4\tfour\n5\tfive\r\n")
    assert (failure.value.sqlstate, failure.value.diag.message_primary) == ("22P04", "literal carriage return found in data")
    assert failure.value.diag.context.strip() == f"COPY {table_name}, line 2"
    assert conn.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (3,)


def test_psql_copies_a_csv_file_with_header_and_quotes(target: Endpoint, table_name: str, tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text(
        'id,name,note\n'
        '1,"Smith, John","said ""hi"""\n'
        '2,,""\n'
        '3,"multi\nline",plain\n'
        '4,"",\n',
        encoding="utf-8",
    )
    run_psql(target, "-c", f"CREATE TABLE {table_name} (id int, name varchar, note varchar)")
    result = run_psql(target, "-c", f"\\copy {table_name} FROM '{source}' CSV HEADER")
    assert result.stdout.strip() == "COPY 4"
    rows = run_psql(target, "-A", "-t", "-F", "|", "-P", "null=<null>", "-c", f"SELECT id, name, note FROM {table_name} ORDER BY id").stdout
    assert rows.splitlines() == ["1|Smith, John|said \"hi\"", "2|<null>|", "3|multi", "line|plain", "4||<null>"]
    # And out again, as a file psql writes.
    target_file = tmp_path / "out.csv"
    run_psql(target, "-c", f"\\copy (SELECT * FROM {table_name} ORDER BY id) TO '{target_file}' WITH (FORMAT csv, HEADER)")
    assert target_file.read_text(encoding="utf-8") == 'id,name,note\n1,"Smith, John","said ""hi"""\n2,,""\n3,"multi\nline",plain\n4,"",\n'


def test_copy_to_stdout_matches_postgresql(target: Endpoint, oracle: Endpoint, table_name: str) -> None:
    statements = [
        f"COPY {table_name} TO STDOUT",
        f"COPY {table_name} (label, id, amount) TO STDOUT WITH (FORMAT csv, HEADER)",
        f"COPY {table_name} TO STDOUT WITH CSV HEADER DELIMITER ';'",
        f"COPY {table_name} TO STDOUT WITH (FORMAT csv, FORCE_QUOTE *, NULL 'NULL')",
        f"COPY {table_name} TO STDOUT (DELIMITER '|', NULL '')",
        f"COPY (SELECT id * 2 AS twice, label || '!' AS label FROM {table_name} WHERE id > 1 ORDER BY id) TO STDOUT (FORMAT csv)",
    ]
    outputs = {}
    for endpoint in (target, oracle):
        with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
            conn.execute("SET TimeZone = 'UTC'")
            conn.execute(TYPED_DDL.format(name=table_name))
            conn.execute(TYPED_ROWS.format(name=table_name))
            # Rows in a fixed order: COPY of a table gives them in storage order.
            outputs[endpoint.kind] = [
                b"".join(sorted(_copy_out(conn, statement).splitlines(keepends=True)))
                if "(SELECT" not in statement else _copy_out(conn, statement)
                for statement in statements
            ]
    for statement, mine, theirs in zip(statements, outputs[target.kind], outputs["postgres"]):
        assert mine == theirs, f"{statement}\nsluice:   {mine!r}\npostgres: {theirs!r}"


def test_copy_from_loads_what_postgresql_loads(target: Endpoint, oracle: Endpoint, table_name: str) -> None:
    """The same text and CSV data into the same table on both; the tables read back alike."""
    text = (
        "1\t10\tplain\t1.5\tt\t1.25\t2024-05-01\t2024-05-01 12:34:56\t2024-05-01 12:34:56+02\t1 day\n"
        "2\t\\N\t\\x41\\102\t-0\tfalse\t-3\t2024-02-29\t2024-02-29T01:02:03.5\t2024-02-29 00:00:00Z\t-1 hours\n"
    )
    csv = (
        "id,big,label,score,ok,amount,day,at,at_tz,span\n"
        '3,7,"with ""quotes"", and, commas",-Infinity,yes,0.005,2000-01-01,2000-01-01 00:00,2000-01-01 00:00+00,P1D\n'
        '4,,"",Infinity,0,1e3,1970-01-01,1970-01-01 00:00:00,1970-01-01 00:00:00+00,00:00:00\n'
    )
    results = {}
    for endpoint in (target, oracle):
        with psycopg.connect(endpoint.conninfo, autocommit=True) as conn:
            conn.execute("SET TimeZone = 'UTC'")
            conn.execute(TYPED_DDL.format(name=table_name))
            with conn.cursor() as cur:
                with cur.copy(f"COPY {table_name} FROM STDIN") as copy:
                    copy.write(text.encode())
                with cur.copy(f"COPY {table_name} FROM STDIN WITH (FORMAT csv, HEADER match, FORCE_NULL (label))") as copy:
                    copy.write(csv.encode())
            results[endpoint.kind] = conn.execute(f"SELECT * FROM {table_name} ORDER BY id").fetchall()
    assert results[target.kind] == results["postgres"]


def test_pg8000_copies_over_the_extended_protocol(target: Endpoint, table_name: str) -> None:
    conn = pg8000.native.Connection(target.user, host=target.host, port=target.port, database=target.dbname)
    try:
        conn.run(f"CREATE TABLE {table_name} (id int, name varchar)")
        conn.run(f"COPY {table_name} FROM STDIN WITH (FORMAT csv)", stream=io.StringIO("1,one\n2,\"t,wo\"\n3,\n" * 2000))
        assert conn.row_count == 6000
        out = io.StringIO()
        conn.run(f"COPY (SELECT * FROM {table_name} WHERE id = 2 LIMIT 2) TO STDOUT WITH (FORMAT csv)", stream=out)
        assert out.getvalue() == '2,"t,wo"\n2,"t,wo"\n'
        assert conn.row_count == 2
        # A bad row: the error, then the connection goes on.
        with pytest.raises(pg8000.native.DatabaseError) as failure:
            conn.run(f"COPY {table_name} FROM STDIN", stream=io.StringIO("5\tfive\nsix\tsix\n"))
        assert failure.value.args[0]["C"] == "22P02", failure.value.args
        assert conn.run(f"SELECT count(*) FROM {table_name}") == [[6000]]
    finally:
        conn.close()


def test_copy_fail_inserts_nothing(target: Endpoint, conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (id int)")
    with conn.cursor() as cur:
        with pytest.raises(RuntimeError):
            with cur.copy(f"COPY {table_name} FROM STDIN") as copy:
                copy.write_row((1,))
                raise RuntimeError("the client gives up")
    assert conn.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (0,)
    # On the wire: CopyFail's reason comes back as 57014, then ReadyForQuery; CopyData sent
    # after the error is ignored.
    client = WireClient(target.host, target.port)
    try:
        client.login(target.user, target.dbname)
        client.send(message(b"Q", cstring(f"COPY {table_name} FROM STDIN")))
        response = client.read_message()
        assert response.type == b"G"
        assert response.body == b"\x00" + struct.pack("!hh", 1, 0)
        client.send(message(b"d", b"1\n2\n") + message(b"f", cstring("disk on fire")) + message(b"d", b"3\n") + message(b"c"))
        error = client.read_message()
        assert error.type == b"E"
        fields = error.error_fields()
        assert (fields["C"], fields["M"]) == ("57014", "COPY from stdin failed: disk on fire")
        assert client.read_message().type == b"Z"
        client.send(message(b"Q", cstring(f"SELECT count(*) FROM {table_name}")))
        messages = client.read_until(b"Z")
        assert [m.type for m in messages] == [b"T", b"D", b"C", b"Z"]
        assert messages[1].body.endswith(b"0")
    finally:
        client.close()


@pytest.mark.parametrize(
    ("data", "sqlstate", "message", "context"),
    [
        (b"1\t2\n2\t3\n3\tx\n", "22P02", 'invalid input syntax for type integer: "x"', 'COPY {t}, line 3, column b: "x"'),
        (b"1\t2\n2\n", "22P04", 'missing data for column "b"', 'COPY {t}, line 2: "2"'),
        (b"1\t2\t3\n", "22P04", "extra data after last expected column", 'COPY {t}, line 1: "1\t2\t3"'),
        (b"1\t2\n\\N\t3\n", "23502", 'null value in column "a" of relation "{t}" violates not-null constraint', 'COPY {t}, line 2: "\\N\t3"'),
        (b"1\t2\n1\t99999999999\n", "22003", None, "COPY {t}, line 2, column b: \"99999999999\""),
    ],
    ids=["bad value", "missing column", "extra column", "not null", "out of range"],
)
def test_a_malformed_line_fails_the_whole_copy(
    conn: psycopg.Connection, table_name: str, data: bytes, sqlstate: str, message: str | None, context: str
) -> None:
    conn.execute(f"CREATE TABLE {table_name} (a int NOT NULL, b int)")
    with conn.cursor() as cur:
        with pytest.raises(psycopg.Error) as failure:
            with cur.copy(f"COPY {table_name} FROM STDIN") as copy:
                copy.write(data)
    error = failure.value
    assert error.sqlstate == sqlstate, error
    if message is not None:
        assert error.diag.message_primary == message.format(t=table_name)
    assert error.diag.context is not None and error.diag.context.strip() == context.format(t=table_name)
    assert conn.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (0,)


def test_bad_csv_and_header_mismatch(conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (a int, b varchar)")
    cases = [
        ("(FORMAT csv)", b'1,"never closed\n2,x\n', "22P04", "unterminated CSV quoted field"),
        ("(FORMAT csv, HEADER match)", b"a,c\n1,x\n", "22P04", 'column name mismatch in header line field 2: got "c", expected "b"'),
        ("(FORMAT csv)", b"1,\xff\xfe\n", "22021", 'invalid byte sequence for encoding "UTF8": 0xff'),
    ]
    for options, data, sqlstate, text in cases:
        with conn.cursor() as cur:
            with pytest.raises(psycopg.Error) as failure:
                with cur.copy(f"COPY {table_name} FROM STDIN {options}") as copy:
                    copy.write(data)
        assert (failure.value.sqlstate, failure.value.diag.message_primary) == (sqlstate, text)
    assert conn.execute(f"SELECT count(*) FROM {table_name}").fetchone() == (0,)


def test_refused_copies(target: Endpoint, conn: psycopg.Connection, table_name: str) -> None:
    conn.execute(f"CREATE TABLE {table_name} (a int)")
    conn.execute(f"CREATE VIEW {table_name}_v AS SELECT a FROM {table_name}")
    conn.execute(f"CREATE MATERIALIZED VIEW {table_name}_mv AS SELECT count(*) AS n FROM {table_name}")
    expectations = [
        ("COPY no_such_table FROM STDIN", "42P01"),
        (f"COPY {table_name}_v FROM STDIN", None),
        (f"COPY {table_name}_mv FROM STDIN", None),
        (f"COPY {table_name} (nope) FROM STDIN", "42703"),
        # (PostgreSQL reads binary data; Sluice refuses the format.)
        (f"COPY {table_name} FROM STDIN WITH (FORMAT binary)", "0A000" if target.kind == "sluice" else None),
        (f"COPY {table_name} FROM STDIN WITH (FORMAT xml)", "22023"),
        (f"COPY {table_name} FROM STDIN WITH (DELIMITER 'ab')", None),
        (f"COPY {table_name} FROM STDIN WITH (BOGUS true)", "42601"),
        (f"COPY {table_name} FROM STDIN WITH (QUOTE '\"')", "0A000"),
    ]
    if target.kind == "sluice":
        # (PostgreSQL lets a superuser read and write server files.)
        expectations += [(f"COPY {table_name} FROM '/etc/passwd'", "0A000"), (f"COPY {table_name} TO '/tmp/out'", "0A000")]
    for statement, sqlstate in expectations:
        with pytest.raises(psycopg.Error) as failure:
            with conn.cursor() as cur:
                with cur.copy(statement) as copy:
                    copy.write(b"1\n")
        code = failure.value.sqlstate
        assert code is not None and (sqlstate is None or code == sqlstate), (statement, code, failure.value)
        # Refused before any data: the session goes on.
        assert conn.execute("SELECT 1").fetchone() == (1,)
    # The view targets are refused as such (PostgreSQL: 42809; Sluice's INSERT says 55000).
    with pytest.raises(psycopg.Error) as failure:
        with conn.cursor() as cur, cur.copy(f"COPY {table_name}_mv FROM STDIN"):
            pass
    assert failure.value.sqlstate in {"42809", "55000"}


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


def test_a_two_million_row_copy_streams_in_bounded_memory(tmp_path: Path) -> None:
    """About 60 MB of text, sent in 20,000-row CopyData messages: the server parses it into
    staged chunks as it comes, so its peak resident set stays far below what holding the rows
    as values would take (the table itself is about 60 MB in memory)."""
    rows = 2_000_000
    with SluiceServer(data_dir=tmp_path / "data", extra_args=["--no-broker"]) as server:
        with psycopg.connect(server.endpoint().conninfo, autocommit=True) as conn:
            conn.execute("CREATE TABLE big (id bigint, name varchar, score double precision)")
            with conn.cursor() as cur:
                with cur.copy("COPY big FROM STDIN") as copy:
                    for start in range(0, rows, 20_000):
                        copy.write("".join(f"{i}\tname {i}\t{i * 0.5}\n" for i in range(start, start + 20_000)).encode())
                assert cur.statusmessage == f"COPY {rows}"
            assert conn.execute("SELECT count(*), sum(id), max(name) FROM big").fetchone() == (rows, rows * (rows - 1) // 2, "name 999999")
            # And out again, streamed to the client.
            with conn.cursor() as cur:
                with cur.copy("COPY big TO STDOUT") as copy:
                    count = sum(1 for _ in copy)
                assert count == rows
        peak = _peak_rss_kib(server.process.pid)
    assert peak < 400 * 1024, f"peak resident set {peak} KiB"


def test_copy_inside_a_multi_statement_query(target: Endpoint, conn: psycopg.Connection, table_name: str) -> None:
    """The statements after a COPY in one simple query run once its data is in."""
    conn.execute(f"CREATE TABLE {table_name} (id int)")
    client = WireClient(target.host, target.port)
    try:
        client.login(target.user, target.dbname)
        client.send(message(b"Q", cstring(f"COPY {table_name} FROM STDIN; SELECT count(*) FROM {table_name}")))
        assert client.read_message().type == b"G"
        client.send(message(b"d", b"1\n2") + message(b"d", b"\n3\n") + message(b"c"))
        messages = client.read_until(b"Z")
        assert [m.type for m in messages] == [b"C", b"T", b"D", b"C", b"Z"], messages
        assert messages[0].body == b"COPY 3\x00"
        assert messages[2].body.endswith(b"3")
    finally:
        client.close()
