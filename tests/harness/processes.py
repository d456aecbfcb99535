"""Stopping child servers by PID, also when a test run is interrupted."""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import weakref

_running: "weakref.WeakSet" = weakref.WeakSet()


def stop_process(process: subprocess.Popen, first_signal: int = signal.SIGTERM, timeout: float = 10.0, pid: int | None = None) -> int | None:
    """Sends `first_signal` to `pid` (default: the process's own), waits up to `timeout`
    seconds for `process` to exit, then SIGKILLs it and its process group (servers are started
    with `start_new_session=True`, so the group is theirs alone). Returns the exit code."""
    if process.poll() is not None:
        return process.returncode
    try:
        os.kill(pid or process.pid, first_signal)
    except ProcessLookupError:
        pass
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        for target in {pid, process.pid} - {None}:
            try:
                os.kill(target, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            if os.getpgid(process.pid) == process.pid:
                os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return process.wait(timeout=timeout)


def register(server) -> None:
    """Remembers a started server so that interpreter exit stops it even if no fixture did."""
    _running.add(server)


def unregister(server) -> None:
    _running.discard(server)


@atexit.register
def _stop_all() -> None:
    for server in list(_running):
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - best effort at exit; the fixture reports real failures
            pass
