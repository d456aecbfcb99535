"""Privileges: owners, GRANT and REVOKE on tables, views, materialized views, sources, sinks,
schemas and the database, checked when statements run (42501) and when views are created.

The table, view and schema rules are checked against a real PostgreSQL server: one script of
statements, each run as a given user on both, must succeed or fail with the same SQLSTATE (and
give the same rows). The object kinds PostgreSQL lacks (materialized views kept by a stream,
sources, sinks), the check at CREATE VIEW time, and what system tables show each user are
checked against expectations written by hand."""

from __future__ import annotations

import subprocess
from typing import Iterator

import psycopg
import pytest

from harness import SluiceServer
from harness.postgres_server import PostgresServer
from source_support import connect, wait_until

USERS = ("alice", "bob", "carol")

# (user, statement): each statement runs in its own autocommit session of that user.
ORACLE_SCRIPT: list[tuple[str, str]] = [
    ("root", "CREATE TABLE t (id int PRIMARY KEY, v int)"),
    ("root", "INSERT INTO t VALUES (1, 10), (2, 20)"),
    ("alice", "SELECT id, v FROM t ORDER BY id"),
    ("alice", "INSERT INTO t VALUES (3, 30)"),
    ("root", "GRANT SELECT ON t TO alice"),
    ("alice", "SELECT id, v FROM t ORDER BY id"),
    ("alice", "INSERT INTO t VALUES (3, 30)"),
    ("alice", "UPDATE t SET v = 11 WHERE id = 1"),
    ("alice", "DELETE FROM t WHERE id = 2"),
    ("root", "GRANT INSERT, UPDATE ON TABLE t TO alice"),
    ("alice", "INSERT INTO t VALUES (3, 30)"),
    ("alice", "UPDATE t SET v = 11 WHERE id = 1"),
    ("alice", "DELETE FROM t WHERE id = 2"),
    ("bob", "UPDATE t SET v = 12 WHERE id = 1"),
    ("root", "GRANT DELETE ON t TO alice"),
    ("alice", "DELETE FROM t WHERE id = 2"),
    ("root", "REVOKE SELECT ON t FROM alice"),
    ("alice", "SELECT id FROM t"),
    # WHERE and RETURNING read the rows, which takes SELECT too.
    ("alice", "UPDATE t SET v = 13 WHERE id = 1"),
    ("alice", "INSERT INTO t VALUES (4, 40) RETURNING id"),
    ("alice", "INSERT INTO t VALUES (4, 40)"),
    ("alice", "DELETE FROM t"),
    ("root", "INSERT INTO t VALUES (1, 10), (2, 20)"),
    # The public schema: USAGE for everyone, CREATE for its owner alone (PostgreSQL 15).
    ("alice", "CREATE TABLE a1 (x int)"),
    ("root", "GRANT CREATE ON SCHEMA public TO alice"),
    ("alice", "CREATE TABLE a1 (x int)"),
    ("alice", "INSERT INTO a1 VALUES (1), (2)"),
    ("bob", "SELECT x FROM a1 ORDER BY x"),
    ("alice", "GRANT SELECT ON a1 TO bob"),
    ("bob", "SELECT x FROM a1 ORDER BY x"),
    ("bob", "INSERT INTO a1 VALUES (3)"),
    ("bob", "GRANT SELECT ON a1 TO carol"),
    ("root", "GRANT SELECT ON a1 TO carol"),
    ("carol", "SELECT count(*) FROM a1"),
    ("root", "REVOKE SELECT ON a1 FROM carol"),
    ("alice", "GRANT SELECT ON a1 TO bob WITH GRANT OPTION"),
    ("bob", "GRANT SELECT ON a1 TO carol"),
    ("carol", "SELECT count(*) FROM a1"),
    ("root", "SELECT relacl::text, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'a1'"),
    ("alice", "REVOKE SELECT ON a1 FROM bob"),
    ("alice", "REVOKE SELECT ON a1 FROM bob CASCADE"),
    ("carol", "SELECT count(*) FROM a1"),
    ("bob", "SELECT count(*) FROM a1"),
    ("bob", "DROP TABLE a1"),
    ("root", "GRANT SELECT ON a1 TO PUBLIC"),
    ("carol", "SELECT count(*) FROM a1"),
    ("alice", "REVOKE ALL ON a1 FROM PUBLIC"),
    ("carol", "SELECT count(*) FROM a1"),
    ("alice", "SELECT has_table_privilege('bob', 'a1', 'SELECT'), has_table_privilege('a1', 'INSERT'), has_table_privilege('carol', 't', 'select')"),
    # A view reads with its owner's rights.
    ("root", "GRANT SELECT ON t TO alice"),
    ("alice", "CREATE VIEW av AS SELECT id FROM t WHERE id < 10"),
    ("bob", "SELECT id FROM av ORDER BY id"),
    ("alice", "GRANT SELECT ON av TO bob"),
    ("bob", "SELECT id FROM av ORDER BY id"),
    ("bob", "SELECT id FROM t"),
    ("root", "REVOKE SELECT ON t FROM alice"),
    ("bob", "SELECT id FROM av ORDER BY id"),
    ("bob", "CREATE OR REPLACE VIEW av AS SELECT id FROM t"),
    ("bob", "DROP VIEW av"),
    ("alice", "DROP VIEW av"),
    # Schemas: USAGE to reach what is in them, CREATE to add to them, the owner to drop them.
    ("root", "CREATE SCHEMA s"),
    ("root", "CREATE TABLE s.st (x int)"),
    ("root", "INSERT INTO s.st VALUES (7)"),
    ("root", "GRANT SELECT ON s.st TO alice"),
    ("alice", "SELECT x FROM s.st"),
    ("root", "GRANT USAGE ON SCHEMA s TO alice"),
    ("alice", "SELECT x FROM s.st"),
    ("alice", "CREATE TABLE s.at (x int)"),
    ("root", "GRANT CREATE ON SCHEMA s TO alice"),
    ("alice", "CREATE TABLE s.at (x int)"),
    ("root", "GRANT ALL ON ALL TABLES IN SCHEMA s TO bob"),
    ("bob", "INSERT INTO s.st VALUES (8)"),
    ("root", "GRANT USAGE ON SCHEMA s TO bob"),
    ("bob", "INSERT INTO s.st VALUES (8)"),
    ("bob", "SELECT x FROM s.at"),
    ("alice", "DROP SCHEMA s CASCADE"),
    ("alice", "CREATE SCHEMA mine"),
    ("root", "GRANT CREATE ON DATABASE dev TO alice"),
    ("alice", "CREATE SCHEMA mine"),
    ("alice", "CREATE TABLE mine.m (x int)"),
    ("bob", "DROP SCHEMA mine CASCADE"),
    ("alice", "DROP SCHEMA mine CASCADE"),
    # Indexes are the table owner's to make; bad grants are refused.
    ("alice", "CREATE INDEX t_v ON t (v)"),
    ("alice", "GRANT USAGE ON t TO bob"),
    ("alice", "GRANT SELECT ON t TO bob"),
    ("root", "GRANT SELECT ON t TO nobody"),
    ("root", "GRANT SELECT ON missing TO bob"),
    ("root", "GRANT CREATE ON SCHEMA nowhere TO bob"),
    # Roles that own objects or hold privileges cannot be dropped.
    ("root", "DROP USER alice"),
    ("root", "DROP USER carol"),
]


def _run(conn_factory, user: str, sql: str) -> tuple[str, object]:
    with conn_factory(user) as conn:
        try:
            cursor = conn.execute(sql)
            rows = cursor.fetchall() if cursor.description else None
            return ("ok", [tuple(row) for row in rows] if rows is not None else None)
        except psycopg.Error as error:
            return ("error", error.sqlstate)


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    with PostgresServer() as server:
        yield server


def test_table_view_and_schema_privileges_match_postgres(postgres: PostgresServer, tmp_path) -> None:
    endpoint = postgres.create_database("privileges")
    database = endpoint.dbname
    with psycopg.connect(host=endpoint.host, port=endpoint.port, user="root", dbname=database, autocommit=True) as admin:
        for user in USERS:
            admin.execute(f"DROP ROLE IF EXISTS {user}")
            admin.execute(f"CREATE USER {user}")
        # The oracle's database is not `dev`; the script names it as `dev`.
    def pg(user: str):
        return psycopg.connect(host=endpoint.host, port=endpoint.port, user=user, dbname=database, autocommit=True)

    with SluiceServer(data_dir=tmp_path / "data") as sluice:
        with connect(sluice) as conn:
            for user in USERS:
                conn.execute(f"CREATE USER {user}")

        def ours(user: str):
            return psycopg.connect(host=sluice.host, port=sluice.port, user=user, dbname="dev", autocommit=True)

        mismatches = []
        failures = 0
        for user, sql in ORACLE_SCRIPT:
            expected = _run(pg, user, sql.replace("DATABASE dev", f"DATABASE {database}"))
            got = _run(ours, user, sql)
            failures += expected[0] == "error"
            if expected != got:
                mismatches.append(f"{user}: {sql}\n    postgres: {expected}\n    sluice:   {got}")
        assert not mismatches, "\n".join(mismatches)
        # The script exercises refusals, not only successes.
        assert failures >= 30


MEMBERSHIP_USERS = ("dave", "erin", "frank", "gail")
MEMBERSHIPS = ("SELECT r.rolname, m.rolname, a.admin_option FROM pg_auth_members a JOIN pg_roles r ON r.oid = a.roleid "
               "JOIN pg_roles m ON m.oid = a.member WHERE r.rolname NOT LIKE 'pg%' ORDER BY 1, 2")

# (user, statements): the statements run in order in one autocommit session of that user, so that
# SET ROLE holds for the ones after it.
MEMBERSHIP_SCRIPT: list[tuple[str, list[str]]] = [
    # Names that are also kinds of object in Sluice's grammar are names, as in PostgreSQL.
    ("root", ["CREATE TABLE secret (id int)", "INSERT INTO secret VALUES (1), (2)", "CREATE TABLE source (id int)",
              "CREATE TABLE sink (id int)", "CREATE TABLE connection (id int)"]),
    ("dave", ["SELECT count(*) FROM secret"]),
    ("root", ["GRANT SELECT ON secret TO dave"]),
    ("dave", ["SELECT count(*) FROM secret", "SELECT count(*) FROM source"]),
    ("root", ["GRANT SELECT ON source, sink TO dave", "GRANT INSERT ON connection TO dave", "GRANT SELECT ON TABLE secret TO frank"]),
    ("dave", ["SELECT count(*) FROM source", "SELECT count(*) FROM sink", "INSERT INTO connection VALUES (1)", "SELECT * FROM connection"]),
    ("root", ["REVOKE SELECT ON secret FROM dave, frank"]),
    ("dave", ["SELECT count(*) FROM secret"]),
    # Membership: privileges come through the roles a role is a member of.
    ("root", ["CREATE ROLE readers", "GRANT SELECT ON secret TO readers"]),
    ("erin", ["SELECT count(*) FROM secret", "SHOW is_superuser"]),
    ("root", ["GRANT readers TO erin", "GRANT readers TO erin", "SHOW is_superuser"]),
    ("erin", ["SELECT count(*) FROM secret", "GRANT readers TO frank"]),
    ("root", ["GRANT readers TO erin WITH ADMIN OPTION", MEMBERSHIPS]),
    ("erin", ["GRANT readers TO frank", "SELECT count(*) FROM secret"]),
    ("frank", ["SELECT count(*) FROM secret"]),
    # No role may be a member of itself, directly or not; unknown roles are refused.
    ("root", ["GRANT erin TO readers", "GRANT readers TO readers", "GRANT nobody TO erin", "GRANT readers TO nobody"]),
    # SET ROLE: to a role the session's user is a member of (INHERIT or not); RESET goes back.
    ("erin", ["SET ROLE readers", "SELECT current_user, session_user", "SELECT count(*) FROM secret", "RESET ROLE",
              "SELECT current_user, session_user", "SET ROLE frank", "SET ROLE NONE", "SELECT current_user"]),
    ("dave", ["SET ROLE readers", "SELECT current_user"]),
    ("root", ["CREATE USER gail NOINHERIT", "GRANT readers TO gail"]),
    ("gail", ["SELECT count(*) FROM secret", "SET ROLE readers", "SELECT count(*) FROM secret", "SET ROLE gail",
              "SELECT count(*) FROM secret"]),
    # Through a chain of roles.
    ("root", ["CREATE ROLE staff", "GRANT readers TO staff", "REVOKE readers FROM frank", "REVOKE readers FROM frank"]),
    ("frank", ["SELECT count(*) FROM secret"]),
    ("root", ["GRANT staff TO frank"]),
    ("frank", ["SELECT count(*) FROM secret"]),
    # Admin option taken back: erin keeps the membership, not the right to give it.
    ("root", ["REVOKE ADMIN OPTION FOR readers FROM erin", MEMBERSHIPS]),
    ("erin", ["GRANT readers TO dave", "REVOKE readers FROM frank", "SELECT count(*) FROM secret"]),
    # A role's members own what it owns.
    ("root", ["CREATE ROLE owners", "GRANT CREATE ON SCHEMA public TO owners", "GRANT owners TO dave", "GRANT owners TO erin"]),
    ("dave", ["SET ROLE owners", "CREATE TABLE owned (x int)", "SELECT current_user"]),
    ("root", ["SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'owned'"]),
    ("erin", ["INSERT INTO owned VALUES (1)", "SELECT count(*) FROM owned", "DROP TABLE owned"]),
    ("frank", ["SELECT count(*) FROM owned"]),
    # Dropping a role that holds privileges is refused; without them its memberships go with it.
    ("root", ["DROP ROLE readers", "REVOKE SELECT ON secret FROM readers", "DROP ROLE readers", MEMBERSHIPS]),
    ("erin", ["SELECT count(*) FROM secret"]),
    ("frank", ["SELECT count(*) FROM secret"]),
]


def _run_session(conn_factory, user: str, statements: list[str]) -> list[tuple[str, object]]:
    outcomes = []
    with conn_factory(user) as conn:
        for sql in statements:
            try:
                cursor = conn.execute(sql)
                rows = cursor.fetchall() if cursor.description else None
                outcomes.append(("ok", [tuple(row) for row in rows] if rows is not None else None))
            except psycopg.Error as error:
                outcomes.append(("error", error.sqlstate))
    return outcomes


def test_role_membership_and_names_that_are_kinds_match_postgres(postgres: PostgresServer, tmp_path) -> None:
    endpoint = postgres.create_database("membership")
    database = endpoint.dbname
    with psycopg.connect(host=endpoint.host, port=endpoint.port, user="root", dbname=database, autocommit=True) as admin:
        for user in MEMBERSHIP_USERS[:3]:
            admin.execute(f"CREATE USER {user}")

    def pg(user: str):
        return psycopg.connect(host=endpoint.host, port=endpoint.port, user=user, dbname=database, autocommit=True)

    with SluiceServer(data_dir=tmp_path / "data") as sluice:
        with connect(sluice) as conn:
            for user in MEMBERSHIP_USERS[:3]:
                conn.execute(f"CREATE USER {user}")

        def ours(user: str):
            return psycopg.connect(host=sluice.host, port=sluice.port, user=user, dbname="dev", autocommit=True)

        mismatches = []
        outcomes = []
        for user, statements in MEMBERSHIP_SCRIPT:
            expected = _run_session(pg, user, statements)
            got = _run_session(ours, user, statements)
            outcomes += expected
            for sql, want, have in zip(statements, expected, got):
                if want != have:
                    mismatches.append(f"{user}: {sql}\n    postgres: {want}\n    sluice:   {have}")
        assert not mismatches, "\n".join(mismatches)
        # Refusals and successes both, and the memberships shown.
        assert sum(outcome[0] == "error" for outcome in outcomes) >= 15
        assert ("ok", [("readers", "erin", True)]) in outcomes

    final = _run_session(pg, "root", [MEMBERSHIPS])
    assert final == [("ok", [("owners", "dave", False), ("owners", "erin", False), ("staff", "frank", False)])], final
    # The memberships survive a restart.
    with SluiceServer(data_dir=tmp_path / "data") as sluice:
        def again(user: str):
            return psycopg.connect(host=sluice.host, port=sluice.port, user=user, dbname="dev", autocommit=True)
        assert _run_session(again, "root", [MEMBERSHIPS]) == final
        assert _run_session(again, "dave", ["SET ROLE owners", "SELECT current_user"]) == [("ok", None), ("ok", [("owners",)])]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[SluiceServer]:
    with SluiceServer(data_dir=tmp_path_factory.mktemp("privileges") / "data") as sluice:
        with connect(sluice) as conn:
            for user in USERS:
                conn.execute(f"CREATE USER {user}")
            conn.execute("GRANT CREATE ON SCHEMA public TO alice, bob")
            conn.execute("CREATE TABLE base (id int PRIMARY KEY, v int)")
            conn.execute("INSERT INTO base VALUES (1, 10), (2, 20), (3, 30)")
            conn.execute("""CREATE SOURCE src (id int, v int)
                WITH (connector = 'datagen', fields.id.kind = 'sequence', fields.id.end = '49', datagen.rows.per.second = '1000')""")
        yield sluice


def _as(server: SluiceServer, user: str) -> psycopg.Connection:
    return psycopg.connect(host=server.host, port=server.port, user=user, dbname="dev", autocommit=True)


def _state(server: SluiceServer, user: str, sql: str) -> str | None:
    with _as(server, user) as conn:
        try:
            conn.execute(sql)
            return None
        except psycopg.Error as error:
            return error.sqlstate


def test_materialized_views_sources_and_sinks(server: SluiceServer) -> None:
    # Creating a view or a materialized view over what one may not read is refused at CREATE.
    assert _state(server, "alice", "CREATE MATERIALIZED VIEW amv AS SELECT id, v FROM base") == "42501"
    assert _state(server, "alice", "CREATE VIEW aview AS SELECT id FROM base") == "42501"
    assert _state(server, "alice", "CREATE MATERIALIZED VIEW asrc AS SELECT count(*) AS n FROM src") == "42501"
    assert _state(server, "alice", "SELECT count(*) FROM src") == "42501"
    assert _state(server, "root", "GRANT SELECT ON base TO alice") is None
    assert _state(server, "root", "GRANT SELECT ON SOURCE src TO alice") is None
    assert _state(server, "alice", "CREATE MATERIALIZED VIEW amv AS SELECT id, v FROM base") is None
    assert _state(server, "alice", "CREATE MATERIALIZED VIEW asrc AS SELECT count(*) AS n FROM src") is None
    # The view keeps running on its owner's rights; others need SELECT on it.
    assert _state(server, "bob", "SELECT * FROM amv") == "42501"
    assert _state(server, "alice", "GRANT INSERT ON MATERIALIZED VIEW amv TO bob") == "0LP01"
    assert _state(server, "alice", "GRANT SELECT ON SOURCE amv TO bob") == "42809"
    assert _state(server, "bob", "GRANT SELECT ON MATERIALIZED VIEW amv TO bob") == "42501"
    assert _state(server, "alice", "GRANT SELECT ON MATERIALIZED VIEW amv TO bob") is None
    with _as(server, "bob") as conn:
        assert conn.execute("SELECT id, v FROM amv ORDER BY id").fetchall() == [(1, 10), (2, 20), (3, 30)]
    assert _state(server, "bob", "SELECT n FROM asrc") == "42501"
    with _as(server, "alice") as conn:
        wait_until(lambda: conn.execute("SELECT n FROM asrc").fetchone() == (50,), 30, "the source's 50 rows in alice's view")
    # Sinks: the owner drops them; SELECT on a sink lets a user see it.
    assert _state(server, "alice", "CREATE SINK ask FROM amv WITH (connector = 'blackhole')") is None
    assert _state(server, "bob", "DROP SINK ask") == "42501"
    assert _state(server, "bob", "DROP MATERIALIZED VIEW amv CASCADE") == "42501"
    with _as(server, "bob") as conn:
        assert conn.execute("SELECT name FROM rw_catalog.rw_sinks").fetchall() == []
        assert conn.execute("SELECT name FROM sluice_sinks").fetchall() == []
    assert _state(server, "alice", "GRANT SELECT ON SINK ask TO bob") is None
    with _as(server, "bob") as conn:
        assert conn.execute("SELECT name FROM rw_catalog.rw_sinks").fetchall() == [("ask",)]
        wait_until(lambda: conn.execute("SELECT name FROM sluice_sinks").fetchall() == [("ask",)], 30, "the sink in sluice_sinks")
    assert _state(server, "alice", "REVOKE SELECT ON SINK ask FROM bob") is None
    assert _state(server, "alice", "DROP SINK ask") is None


def test_system_tables_show_each_user_what_they_may_see(server: SluiceServer) -> None:
    with _as(server, "bob") as conn:
        conn.execute("CREATE TABLE bobs (x int)")
    with _as(server, "carol") as conn:
        def names(sql: str) -> set[str]:
            return {row[0] for row in conn.execute(sql).fetchall()}
        assert "bobs" not in names("SELECT tablename FROM pg_tables")
        assert "bobs" not in names("SELECT relname FROM pg_class")
        assert "bobs" not in names("SELECT table_name FROM information_schema.tables")
        assert "bobs" not in names("SHOW TABLES")
        assert "base" not in names("SELECT relname FROM pg_class")
        assert names("SELECT name FROM rw_catalog.rw_materialized_views") == set()
        assert names("SELECT name FROM rw_catalog.rw_sources") == set()
        assert names("SELECT name FROM sluice_sources") == set()
        assert names("SELECT name FROM rw_fragments") == set()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SHOW CREATE TABLE bobs")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DESCRIBE bobs")
    with _as(server, "bob") as conn:
        conn.execute("GRANT SELECT ON bobs TO carol")
        owner = conn.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'bobs'").fetchone()
        assert owner == ("bob",)
        acl = conn.execute("SELECT relacl FROM pg_class WHERE relname = 'bobs'").fetchone()
        assert acl == (["bob=arwdDxt/bob", "carol=r/bob"],)
    # psql's \dp reads the same.
    run = subprocess.run(["psql", "-h", server.host, "-p", str(server.port), "-U", "bob", "-d", "dev", "-X", "-A", "-c", "\\dp bobs"],
                         capture_output=True, text=True, timeout=30)
    assert run.returncode == 0 and "bob=arwdDxt/bob\ncarol=r/bob" in run.stdout, run.stdout + run.stderr
    with _as(server, "carol") as conn:
        assert conn.execute("SELECT tablename FROM pg_tables WHERE tablename = 'bobs'").fetchall() == [("bobs",)]
        assert ("bobs",) in conn.execute("SHOW TABLES").fetchall()
    with _as(server, "root") as conn:
        # A superuser sees everything.
        every = {row[0] for row in conn.execute("SELECT relname FROM pg_class").fetchall()}
        assert {"bobs", "base", "amv", "src"} <= every


def test_prepared_statements_are_checked_again_after_revoke(server: SluiceServer) -> None:
    with _as(server, "root") as conn:
        conn.execute("CREATE TABLE prepared_t (x int)")
        conn.execute("INSERT INTO prepared_t VALUES (5)")
        conn.execute("GRANT SELECT ON prepared_t TO carol")
    with _as(server, "carol") as carol:
        for _ in range(3):
            assert carol.execute("SELECT x FROM prepared_t WHERE x > %s", (1,), prepare=True).fetchall() == [(5,)]
        with _as(server, "root") as conn:
            conn.execute("REVOKE SELECT ON prepared_t FROM carol")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            carol.execute("SELECT x FROM prepared_t WHERE x > %s", (1,), prepare=True)


def test_privileges_survive_a_restart(tmp_path) -> None:
    data = tmp_path / "data"
    with SluiceServer(data_dir=data) as sluice, connect(sluice) as conn:
        conn.execute("CREATE USER dave")
        conn.execute("CREATE USER erin")
        conn.execute("CREATE SCHEMA kept")
        conn.execute("GRANT USAGE, CREATE ON SCHEMA kept TO dave")
        conn.execute("CREATE TABLE kept.k (x int)")
        conn.execute("GRANT SELECT, INSERT ON kept.k TO dave")
    with SluiceServer(data_dir=data) as sluice:
        assert _state(sluice, "dave", "INSERT INTO kept.k VALUES (1)") is None
        assert _state(sluice, "dave", "CREATE TABLE kept.mine (y int)") is None
        assert _state(sluice, "erin", "SELECT * FROM kept.k") == "42501"
        assert _state(sluice, "dave", "DELETE FROM kept.k") == "42501"
        with _as(sluice, "root") as conn:
            assert conn.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'mine'").fetchone() == ("dave",)
