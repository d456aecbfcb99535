"""`SluiceServer`: the real `sluice serve` process on a free loopback port."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from . import processes
from .endpoint import Endpoint
from .ports import free_port, wait_for_port

REPO_ROOT = Path(__file__).resolve().parents[2]


def sluice_binary() -> Path:
    """The binary under test: `$SLUICE_BIN`, else the debug build `make test` makes."""
    return Path(os.environ.get("SLUICE_BIN") or REPO_ROOT / ".build" / "debug" / "sluice")


class SluiceServer:
    """Runs `sluice serve --listen 127.0.0.1:PORT --data-dir DIR --kafka-listen 127.0.0.1:PORT2`
    and stops it by PID. `kafka_bootstrap` is the address of its built-in Kafka broker.

    Usable as a context manager. The server's stdout and stderr go to `server.log` in its
    work directory; `log()` returns them, so that a failing test can show what the server said.
    Extra arguments come from `$SLUICE_SERVE_ARGS` (shell words).
    """

    def __init__(self, binary: Path | None = None, host: str = "127.0.0.1", start_timeout: float | None = None, stop_timeout: float = 10.0,
                 data_dir: Path | None = None, kafka_port: int | None = None, extra_args: list[str] | None = None,
                 catalog_port: int | None = None, env: dict[str, str] | None = None, may_die_at_start: bool = False):
        # `data_dir`, when given, outlives the server (to test restarts); otherwise the data
        # directory is made inside the work directory and removed with it.
        self._data_dir = Path(data_dir) if data_dir else None
        # `kafka_port`, when given, is the broker's port instead of a free one: for a script that
        # hard-codes its broker (seed 001's producer uses localhost:9092). Start fails if it is taken.
        self._fixed_kafka_port = kafka_port
        # The built-in Iceberg REST catalog's port: a free one unless given.
        self._fixed_catalog_port = catalog_port
        # Environment variables added to the server's (S3 credentials, say).
        self._env = dict(env or {})
        # A server started with a failpoint may reach it (and SIGKILL itself) while it recovers,
        # before it accepts connections: with `may_die_at_start`, `start` returns then instead of
        # raising, and the test sees `process.poll()` set.
        self._may_die_at_start = may_die_at_start
        self.catalog_port = 0
        # The HTTP app's port (dashboard, /metrics, /health): a free one.
        self.http_port = 0
        # The webhook listener's port: a free one.
        self.webhook_port = 0
        # The built-in schema registry's port: a free one.
        self.schema_registry_port = 0
        # Flink's SQL gateway API's port: a free one.
        self.flink_gateway_port = 0
        # The Trino protocol listener's port: a free one.
        self.trino_port = 0
        # The ksqlDB REST API's port: a free one.
        self.ksql_port = 0
        # `extra_args` go after the harness's own `sluice serve` arguments (broker settings, say).
        self._extra_args = list(extra_args or [])
        self.binary = Path(binary) if binary else sluice_binary()
        self.host = host
        self.port = 0
        self.kafka_port = 0
        self.start_timeout = start_timeout or float(os.environ.get("SLUICE_START_TIMEOUT", "30"))
        self.stop_timeout = stop_timeout
        self.workdir: Path | None = None
        self.process: subprocess.Popen | None = None
        self._log_text = ""

    @property
    def data_dir(self) -> Path:
        if self._data_dir is not None:
            return self._data_dir
        assert self.workdir is not None
        return self.workdir / "data"

    @property
    def log_path(self) -> Path:
        assert self.workdir is not None
        return self.workdir / "server.log"

    def start(self) -> "SluiceServer":
        if not self.binary.is_file():
            raise RuntimeError(f"no Sluice binary at {self.binary}: run `swift build` (make test does) or set SLUICE_BIN")
        self.workdir = Path(tempfile.mkdtemp(prefix="sluice-test-"))
        self.data_dir.mkdir(exist_ok=True)
        self.port = free_port(self.host)
        self.kafka_port = self._fixed_kafka_port or free_port(self.host)
        self.catalog_port = self._fixed_catalog_port or free_port(self.host)
        self.http_port = free_port(self.host)
        self.webhook_port = free_port(self.host)
        self.schema_registry_port = free_port(self.host)
        self.flink_gateway_port = free_port(self.host)
        self.trino_port = free_port(self.host)
        self.ksql_port = free_port(self.host)
        args = [
            str(self.binary), "serve",
            "--listen", f"{self.host}:{self.port}",
            "--data-dir", str(self.data_dir),
            "--kafka-listen", f"{self.host}:{self.kafka_port}",
            "--catalog-listen", f"{self.host}:{self.catalog_port}",
            "--dashboard-listen", f"{self.host}:{self.http_port}",
            "--webhook-listen", f"{self.host}:{self.webhook_port}",
            "--schema-registry-listen", f"{self.host}:{self.schema_registry_port}",
            "--flink-gateway-listen", f"{self.host}:{self.flink_gateway_port}",
            "--trino-listen", f"{self.host}:{self.trino_port}",
            "--ksql-listen", f"{self.host}:{self.ksql_port}",
            *self._extra_args,
            *shlex.split(os.environ.get("SLUICE_SERVE_ARGS", "")),
        ]
        with open(self.log_path, "wb") as log:
            log.write(("$ " + shlex.join(args) + "\n").encode())
            log.flush()
            self.process = subprocess.Popen(
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.workdir, start_new_session=True, env={**os.environ, **self._env},
            )
        processes.register(self)
        try:
            wait_for_port(self.host, self.port, self.start_timeout, self.process, what=f"sluice serve (pid {self.process.pid})")
        except Exception as error:
            if self._may_die_at_start and self.process.poll() == -signal.SIGKILL:
                return self
            self.stop()
            raise RuntimeError(f"{error}\n--- sluice server log ---\n{self._log_text}") from None
        return self

    def stop(self) -> int | None:
        """Stops the server (SIGTERM, then SIGKILL after `stop_timeout` s), keeps its log, removes its files."""
        code = None
        if self.process is not None:
            code = processes.stop_process(self.process, signal.SIGTERM, timeout=self.stop_timeout)
        processes.unregister(self)
        if self.workdir is not None and self.workdir.exists():
            self._log_text = self._read_log()
            if not os.environ.get("SLUICE_KEEP_WORKDIR"):
                shutil.rmtree(self.workdir, ignore_errors=True)
        return code

    def log(self) -> str:
        """Everything the server printed so far."""
        if self.workdir is not None and self.log_path.exists():
            return self._read_log()
        return self._log_text

    def _read_log(self) -> str:
        text = self.log_path.read_bytes().decode("utf-8", "replace")
        return text if len(text) <= 20000 else "…(earlier lines cut)…\n" + text[-20000:]

    @property
    def kafka_bootstrap(self) -> str:
        return f"{self.host}:{self.kafka_port}"

    @property
    def catalog_base(self) -> str:
        """The built-in Iceberg REST catalog's base address (clients add `/api/catalog` or not)."""
        return f"http://{self.host}:{self.catalog_port}"

    @property
    def http_base(self) -> str:
        """The HTTP app's base address: the dashboard, `/metrics`, `/health` and `/ready`."""
        return f"http://{self.host}:{self.http_port}"

    @property
    def webhook_base(self) -> str:
        """The webhook listener's base address (requests go to `/webhook/dev/<schema>/<table>`)."""
        return f"http://{self.host}:{self.webhook_port}"

    @property
    def schema_registry_url(self) -> str:
        """The built-in schema registry's address (Confluent's REST API)."""
        return f"http://{self.host}:{self.schema_registry_port}"

    @property
    def ksql_url(self) -> str:
        """The ksqlDB REST API's address (`/ksql`, `/query`, `/query-stream`)."""
        return f"http://{self.host}:{self.ksql_port}"

    def endpoint(self) -> Endpoint:
        return Endpoint(self.host, self.port, user="root", dbname="dev", kind="sluice", log=self.log, interrupt=self.kill)

    def kill(self) -> None:
        """SIGKILLs the server at once (its clients see the connection close)."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()

    def __enter__(self) -> "SluiceServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
