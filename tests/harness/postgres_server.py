"""`PostgresServer`: a throwaway PostgreSQL cluster, the oracle for SQL behaviour.

Configured like a Sluice session: superuser `root`, database `dev`, trust authentication,
C collation (byte-wise text order), UTF-8, time zone UTC, ISO dates.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from . import processes
from .endpoint import Endpoint
from .ports import free_port, wait_for_port


def _alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        # Gone before the open (FileNotFoundError) or between the open and the read
        # (ProcessLookupError: the kernel answers ESRCH for a reaped process's stat).
        return False


def find_postgres_bindir() -> Path:
    """The directory holding `initdb` and `postgres`: `$PG_BINDIR`, else the newest
    `/usr/lib/postgresql/*/bin`, else `pg_config --bindir`."""
    if os.environ.get("PG_BINDIR"):
        return Path(os.environ["PG_BINDIR"])
    candidates = sorted(
        (p for p in Path("/usr/lib/postgresql").glob("*/bin") if (p / "initdb").is_file()),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
    )
    if candidates:
        return candidates[-1]
    pg_config = shutil.which("pg_config")
    if pg_config:
        bindir = Path(subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, check=True).stdout.strip())
        if (bindir / "initdb").is_file():
            return bindir
    raise RuntimeError("PostgreSQL server binaries not found: install the `postgresql` package (make deps does) or set PG_BINDIR")


class PostgresServer:
    """Runs `postgres` on a free loopback port from a temporary data directory; stops it by PID.

    As root, `initdb` and `postgres` run as the `postgres` user (`runuser`), in a temporary
    directory that user owns; PostgreSQL refuses to run as root.
    """

    def __init__(self, bindir: Path | None = None, host: str = "127.0.0.1", start_timeout: float = 60.0, logical: bool = False):
        self.bindir = Path(bindir) if bindir else find_postgres_bindir()
        self.host = host
        self.port = 0
        self.start_timeout = start_timeout
        # `logical`: wal_level = logical and room for replication slots (a CDC source's upstream).
        self.logical = logical
        self.workdir: Path | None = None
        self.process: subprocess.Popen | None = None
        self._database_counter = 0
        self._log_text = ""

    # -- paths -----------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "data"

    @property
    def log_path(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "postgres.log"

    def _as_server_user(self, args: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *args]
        return args

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> "PostgresServer":
        self.workdir = Path(tempfile.mkdtemp(prefix="sluice-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.workdir, user.pw_uid, user.pw_gid)
        initdb = subprocess.run(
            self._as_server_user([
                str(self.bindir / "initdb"), "-D", str(self.data_dir), "-U", "root", "-A", "trust",
                "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions",
            ]),
            capture_output=True, text=True, cwd=self.workdir,
        )
        if initdb.returncode != 0:
            raise RuntimeError(f"initdb failed ({initdb.returncode}):\n{initdb.stdout}\n{initdb.stderr}")
        self.port = free_port(self.host)
        try:
            self._launch()
            self.execute("postgres", "CREATE DATABASE dev")
        except Exception as error:
            self.stop()
            raise RuntimeError(f"{error}\n--- postgres log ---\n{self._log_text}") from None
        return self

    def _launch(self) -> None:
        """Starts the postmaster on the cluster and port already chosen; waits until it logs in."""
        args = self._as_server_user([
            str(self.bindir / "postgres"), "-D", str(self.data_dir), "-p", str(self.port),
            "-k", str(self.workdir),
            "-c", f"listen_addresses={self.host}",
            # fsync off: nothing here survives the machine's crash, only the server's. A commit
            # still writes its WAL before it answers (synchronous_commit), so a SIGKILLed server
            # keeps every transaction it acknowledged, as the sink and CDC tests need.
            "-c", "fsync=off", "-c", "synchronous_commit=on", "-c", "full_page_writes=off",
            "-c", "timezone=UTC", "-c", "log_timezone=UTC", "-c", "datestyle=ISO, MDY",
            "-c", "max_connections=100", "-c", "shared_buffers=64MB",
            *(["-c", "wal_level=logical", "-c", "max_replication_slots=32", "-c", "max_wal_senders=32"] if self.logical else []),
        ])
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.workdir, start_new_session=True,
            )
        processes.register(self)
        wait_for_port(self.host, self.port, self.start_timeout, self.process, what="postgres")
        self._wait_until_ready()

    def restart(self, kill: bool = False) -> None:
        """Stops the server (fast shutdown, or SIGKILL with `kill`: a crash) and starts it again
        on the same data and port, as an upstream restart looks to its clients."""
        assert self.process is not None
        if kill:
            # The postmaster and its backends, which would otherwise hold the shared memory
            # until they noticed; then the postmaster's parent (`runuser`, as root).
            postmaster = self._postmaster_pid()
            if postmaster is not None:
                subprocess.run(["pkill", "-KILL", "-P", str(postmaster)], check=False)
                try:
                    os.kill(postmaster, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                deadline = time.monotonic() + 15
                while _alive(postmaster) or subprocess.run(["pgrep", "-P", str(postmaster)], capture_output=True).returncode == 0:
                    assert time.monotonic() < deadline, "the killed postmaster did not go"
                    time.sleep(0.01)  # polling for the processes to be gone
            self.process.wait(timeout=15.0)
        else:
            processes.stop_process(self.process, signal.SIGINT, timeout=15.0, pid=self._postmaster_pid())
        processes.unregister(self)
        self._launch()

    def add_password_user(self, user: str, password: str) -> None:
        """A login role that must give `password` (SCRAM) over TCP, while `root` keeps trust."""
        self.execute("postgres", f"CREATE ROLE \"{user}\" LOGIN SUPERUSER PASSWORD '{password}'")
        hba = self.data_dir / "pg_hba.conf"
        text = hba.read_text()
        hba.write_text(f"host all {user} 127.0.0.1/32 scram-sha-256\n" + text)
        self.execute("postgres", "SELECT pg_reload_conf()")

    def _wait_until_ready(self) -> None:
        """The port opens before recovery ends; poll with a real login until it succeeds."""
        import psycopg

        deadline = time.monotonic() + self.start_timeout
        delay = 0.01
        while True:
            try:
                psycopg.connect(self.endpoint("postgres").conninfo).close()
                return
            except psycopg.OperationalError:
                if time.monotonic() >= deadline or self.process.poll() is not None:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            return None

    def stop(self) -> None:
        """Fast shutdown (SIGINT to the postmaster), SIGKILL after 15 s; removes the cluster."""
        if self.process is not None:
            processes.stop_process(self.process, signal.SIGINT, timeout=15.0, pid=self._postmaster_pid())
        processes.unregister(self)
        if self.workdir is not None and self.workdir.exists():
            self._log_text = self.log()
            if not os.environ.get("SLUICE_KEEP_WORKDIR"):
                shutil.rmtree(self.workdir, ignore_errors=True)

    def log(self) -> str:
        if self.workdir is not None and self.log_path.exists():
            text = self.log_path.read_bytes().decode("utf-8", "replace")
            return text if len(text) <= 20000 else "…(earlier lines cut)…\n" + text[-20000:]
        return self._log_text

    def __enter__(self) -> "PostgresServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- databases -------------------------------------------------------------------------
    def endpoint(self, dbname: str = "dev") -> Endpoint:
        return Endpoint(
            self.host, self.port, user="root", dbname=dbname, kind="postgres", log=self.log,
            interrupt=lambda: self.terminate_sessions(dbname),
        )

    def terminate_sessions(self, dbname: str) -> None:
        """Ends every session connected to `dbname` (pg_terminate_backend)."""
        import psycopg

        with psycopg.connect(self.endpoint("postgres").conninfo, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (dbname,))

    def execute(self, dbname: str, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.endpoint(dbname).conninfo, autocommit=True) as conn:
            conn.execute(sql)

    def create_database(self, prefix: str = "db") -> Endpoint:
        """A new empty database (`prefix_N`) on this server."""
        self._database_counter += 1
        name = f"{prefix}_{self._database_counter}"
        self.execute("postgres", f'CREATE DATABASE "{name}"')
        return self.endpoint(name)

    def drop_database(self, endpoint: Endpoint) -> None:
        self.execute("postgres", f'DROP DATABASE IF EXISTS "{endpoint.dbname}" WITH (FORCE)')
