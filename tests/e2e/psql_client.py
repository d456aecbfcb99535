"""Running the real `psql` client in tests."""

from __future__ import annotations

import os
import subprocess

from harness import Endpoint


def run_psql(endpoint: Endpoint, *args: str, input: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Runs the real `psql` against `endpoint`: no ~/.psqlrc, no password prompt, stops at the first error."""
    env = {**os.environ, "PGCONNECT_TIMEOUT": "10", "PAGER": "", "PSQL_PAGER": "", "LC_ALL": "C.UTF-8"}
    env.pop("PGPASSWORD", None)
    result = subprocess.run(
        [*endpoint.psql_args(), "-v", "ON_ERROR_STOP=1", *args],
        input=input, capture_output=True, text=True, env=env, timeout=60,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"psql {' '.join(args)} exited {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result
