"""postgres-nio, the Swift client: builds tests/clients/postgres-nio (a few minutes on a fresh
machine, once per run) and runs its checks against the server. Runs by default."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from harness import Endpoint

REPO_ROOT = Path(__file__).resolve().parents[2]
# The package sits one level down: SwiftPM names a root package after its directory, and
# "postgres-nio" would clash with the dependency of that name.
PACKAGE = REPO_ROOT / "tests" / "clients" / "postgres-nio" / "pgnio-check"
SCRATCH = REPO_ROOT / ".build-pgnio"


@pytest.fixture(scope="module")
def pgnio_check() -> Path:
    """Builds `pgnio-check`; `$SLUICE_BUILD_LOCK` names a lock file to take around the build."""
    swift = shutil.which("swift")
    assert swift, "swift is not on PATH"
    command = [swift, "build", "--package-path", str(PACKAGE), "--scratch-path", str(SCRATCH)]
    if os.environ.get("SLUICE_BUILD_LOCK"):
        command = ["flock", os.environ["SLUICE_BUILD_LOCK"], *command]
    build = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, timeout=1500)
    assert build.returncode == 0, f"building pgnio-check failed:\n{build.stdout[-6000:]}\n{build.stderr[-6000:]}"
    binary = SCRATCH / "debug" / "pgnio-check"
    assert binary.is_file(), f"no binary at {binary}"
    return binary


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_postgres_nio_client(target: Endpoint, pgnio_check: Path) -> None:  # server first: no build if it cannot start
    result = subprocess.run(
        [str(pgnio_check), target.host, str(target.port), target.user, target.dbname],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )
    assert result.returncode == 0, f"pgnio-check exited {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    assert "all checks passed" in result.stdout
