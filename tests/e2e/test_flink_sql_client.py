"""`sluice sql --dialect flink`, Flink's SQL client of our own over the Flink SQL gateway API:
a script run with -f (seed 004's catalog and Kafka table as its users type them, the broker's
host name through --host-alias) and the interactive Flink SQL> prompt (driven with pexpect),
printing what Flink's client prints."""

from __future__ import annotations

import subprocess

import pexpect
from kafka import KafkaAdminClient
from kafka.admin import NewTopic

from harness import SluiceServer
from harness.ports import free_port
from harness.sluice_server import sluice_binary
from test_seed_004 import SOURCE


def _sql(server: SluiceServer, script: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "script.sql"
    path.write_text(script)
    return subprocess.run([str(sluice_binary()), "sql", "--dialect", "flink", "--endpoint", f"127.0.0.1:{server.flink_gateway_port}", "-f", str(path)],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_a_script_of_seed_004_statements(tmp_path) -> None:
    kafka_port = free_port()
    with SluiceServer(kafka_port=kafka_port, extra_args=[f"--host-alias=kafka-broker:29092=127.0.0.1:{kafka_port}"]) as server:
        admin = KafkaAdminClient(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=10000)
        admin.create_topics([NewTopic("payment_charges", 1, 1)])
        admin.close()
        script = "\n".join([
            "CREATE CATALOG kafka_catalog WITH ('type'='generic_in_memory');",
            "CREATE DATABASE kafka_catalog.payments_db;",
            SOURCE.strip(),
            "SET 'sql-client.execution.result-mode' = 'tableau';",
            "-- a comment; not a statement",
            "SHOW CATALOGS;",
            "SELECT 'a;b' AS s, 41 + 1 AS answer, CAST(NULL AS INT) AS nothing",
            "  ;",
        ])
        run = _sql(server, script, tmp_path)
        assert run.returncode == 0, run.stdout + run.stderr
        blocks = run.stdout.strip().split("\n")
        assert blocks[:4] == ["[INFO] Execute statement succeeded."] * 4
        assert run.stdout.count("[INFO] Execute statement succeeded.") == 4
        assert "|    catalog name |" in run.stdout and "| default_catalog |" in run.stdout and "2 rows in set" in run.stdout
        assert "| op |   s | answer | nothing |" in run.stdout
        assert "| +I | a;b |     42 |  <NULL> |" in run.stdout
        assert run.stdout.rstrip().endswith("Received a total of 1 row")

        # Catalogs belong to a session, as in Flink's client: a new one names its catalog again, and
        # finds the table. A script stops at its first error.
        run = _sql(server, "SELECT COUNT(*) AS n FROM kafka_catalog.payments_db.payment_charges;\n", tmp_path)
        assert run.returncode == 1 and "cross-database references are not implemented" in run.stdout
        run = _sql(server, "CREATE CATALOG kafka_catalog WITH ('type'='generic_in_memory');\n"
                   "SELECT COUNT(*) AS n FROM kafka_catalog.payments_db.payment_charges;\nSELECT * FROM nowhere;\nSELECT 1;\n", tmp_path)
        assert run.returncode == 1
        assert "| +I | 0 |" in run.stdout
        assert "[ERROR] Could not execute SQL statement. Reason:\norg.apache.flink.table.api.ValidationException: relation \"nowhere\" does not exist" in run.stdout
        assert run.stdout.count("Received a total") == 1

        # The result modes: `table` shows the rows without their change kind, `changelog` with it;
        # another mode is Flink's error, and the script stops there.
        run = _sql(server, "SET 'sql-client.execution.result-mode' = 'table';\nSELECT 6 * 7 AS answer;\n"
                   "SET 'sql-client.execution.result-mode' = 'changelog';\nSELECT 6 * 7 AS answer;\n"
                   "SET 'sql-client.execution.result-mode' = 'fullscreen';\nSELECT 1;\n", tmp_path)
        assert run.returncode == 1
        assert "| answer |\n+--------+\n|     42 |" in run.stdout
        assert "| op | answer |" in run.stdout and "| +I |     42 |" in run.stdout
        assert "Could not parse value 'fullscreen' for key 'sql-client.execution.result-mode'" in run.stdout
        assert run.stdout.count("42 |") == 2


def test_the_interactive_prompt() -> None:
    with SluiceServer() as server:
        child = pexpect.spawn(str(sluice_binary()), ["sql", "--endpoint", f"127.0.0.1:{server.flink_gateway_port}"], encoding="utf-8", timeout=60)
        try:
            child.expect_exact("Flink SQL> ")
            child.sendline("SELECT")
            child.expect_exact("> ")
            child.sendline("  6 * 7 AS answer;")
            child.expect_exact("| +I |     42 |")
            child.expect_exact("Received a total of 1 row")
            child.expect_exact("Flink SQL> ")
            child.sendline("SELEC 1;")
            child.expect_exact("[ERROR] Could not execute SQL statement. Reason:")
            child.expect_exact("Flink SQL> ")
            child.sendline("HELP;")
            child.expect_exact("QUIT/EXIT")
            child.sendline("QUIT;")
            child.expect_exact("Shutting down the session...")
            child.expect(pexpect.EOF)
        finally:
            child.close()
        assert child.exitstatus == 0
