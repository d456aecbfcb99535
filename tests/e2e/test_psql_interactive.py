"""psql used interactively, as a person types at its prompt: a real pseudo-terminal (pexpect)."""

from __future__ import annotations

import os
import shutil

import pexpect

from harness import Endpoint
from harness.endpoint import command_tag


def test_interactive_session(target: Endpoint, table_name: str) -> None:
    env = dict(os.environ, PAGER="cat", PSQL_PAGER="cat", TERM="dumb", PSQLRC="/dev/null")
    psql = pexpect.spawn(
        shutil.which("psql") or "psql",
        ["-h", target.host, "-p", str(target.port), "-U", target.user, "-d", target.dbname],
        env=env, encoding="utf-8", timeout=15,
    )
    try:
        prompt = rf"{target.dbname}=[#>] "
        psql.expect(prompt)
        psql.sendline(f"CREATE TABLE {table_name} (id int PRIMARY KEY, name varchar);")
        psql.expect(command_tag(target, "CREATE TABLE"))
        psql.expect(prompt)
        psql.sendline(f"INSERT INTO {table_name} VALUES (1, 'ann'), (2, 'bob');")
        psql.expect("INSERT 0 2")
        psql.expect(prompt)
        psql.sendline(f"SELECT name FROM {table_name} ORDER BY id;")
        psql.expect(r"name\s+-+\s+ann\s+bob\s+\(2 rows\)")
        psql.expect(prompt)
        psql.sendline(f"\\d {table_name}")
        psql.expect(rf'Table "public\.{table_name}"')
        psql.expect(r"id\s+\|\s+integer\s+\|\s+\|\s+not null")
        psql.expect(prompt)
        psql.sendline("SELEC 1;")
        psql.expect(r'ERROR:\s+syntax error at or near "SELEC"')
        psql.expect(prompt)
        psql.sendline(f"DROP TABLE {table_name};")
        psql.expect(prompt)
        psql.sendline("\\q")
        psql.expect(pexpect.EOF)
    finally:
        psql.close(force=True)
    assert psql.exitstatus == 0, psql.before
