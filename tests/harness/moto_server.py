"""`MotoServer`: a local S3 server (moto in server mode, from the test environment) on a free
loopback port, stopped by PID. Tests of S3 warehouses point Sluice and the readers at it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import processes
from .ports import free_port, wait_for_port

# moto's default credentials; it accepts any unless told to check them.
ACCESS_KEY = "test"
SECRET_KEY = "test"
REGION = "us-east-1"


class MotoServer:
    def __init__(self, host: str = "127.0.0.1", start_timeout: float = 60.0):
        self.host = host
        self.port = 0
        self.start_timeout = start_timeout
        self.process: subprocess.Popen | None = None
        self.workdir: Path | None = None

    @property
    def endpoint(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> "MotoServer":
        executable = Path(sys.executable).parent / "moto_server"
        if not executable.exists():
            found = shutil.which("moto_server")
            if found is None:
                raise RuntimeError("moto_server is not installed: `make deps` installs moto[server] into .venv")
            executable = Path(found)
        self.workdir = Path(tempfile.mkdtemp(prefix="sluice-moto-"))
        self.port = free_port(self.host)
        with open(self.workdir / "moto.log", "wb") as log:
            self.process = subprocess.Popen(
                [str(executable), "-H", self.host, "-p", str(self.port)], stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, cwd=self.workdir, start_new_session=True)
        processes.register(self)
        try:
            wait_for_port(self.host, self.port, self.start_timeout, self.process, what=f"moto_server (pid {self.process.pid})")
        except Exception:
            self.stop()
            raise
        return self

    def create_bucket(self, name: str) -> None:
        import boto3

        self.client().create_bucket(Bucket=name)

    def client(self):
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY, aws_secret_access_key=SECRET_KEY,
                            region_name=REGION)

    def stop(self) -> None:
        if self.process is not None:
            processes.stop_process(self.process)
        processes.unregister(self)
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> "MotoServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
