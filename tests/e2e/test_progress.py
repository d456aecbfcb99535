"""Progress on a terminal, quiet when piped: `sluice gen` and `sluice produce` redraw a progress
line on standard error when it is a terminal (a pseudo-terminal here), print only their summary
when it is piped, and nothing at all with `--quiet`."""

from __future__ import annotations

import os
import pty
import re
import subprocess

from harness import SluiceServer
from harness.sluice_server import sluice_binary

PROGRESS = re.compile(rb"\r\x1b\[Ksluice gen balloon: (\d+) events, \d+ events/s")
# 3,000 events at 2,000 a second: a second and a half, three progress lines at half-second steps.
GEN = ["gen", "balloon", "--count", "3000", "--rate", "2000", "--output", os.devnull]


def _on_terminal(args: list[str], stdin: bytes | None = None) -> bytes:
    """Runs the command with standard error (and output) on a pseudo-terminal; returns all it wrote."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([str(sluice_binary()), *args], stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                               stdout=follower, stderr=follower)
    os.close(follower)
    if stdin is not None:
        process.stdin.write(stdin)
        process.stdin.close()
    output = b""
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:  # the follower side closed: the process ended
            break
        if not data:
            break
        output += data
    assert process.wait(timeout=60) == 0, output
    os.close(leader)
    return output


def test_generator_progress_on_a_terminal_only() -> None:
    shown = _on_terminal(GEN)
    counts = [int(n) for n in PROGRESS.findall(shown)]
    assert len(counts) >= 2, shown
    assert counts == sorted(counts) and counts[-1] < 3000, counts
    assert b"sluice gen balloon: 3000 events" in shown.split(b"\r\x1b[K")[-1], "the summary follows a cleared line"

    piped = subprocess.run([str(sluice_binary()), *GEN], capture_output=True, timeout=60)
    assert piped.returncode == 0
    lines = piped.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sluice gen balloon: 3000 events"), piped.stderr
    assert b"\r" not in piped.stderr and b"\x1b" not in piped.stderr

    assert _on_terminal([*GEN, "--quiet"]) == b""


def test_produce_progress_and_quiet(tmp_path) -> None:
    records = b"".join(b'{"n": %d}\n' % n for n in range(20_000))
    with SluiceServer(data_dir=tmp_path / "data") as server:
        bootstrap = ["--bootstrap", server.kafka_bootstrap]
        shown = _on_terminal(["produce", *bootstrap, "progress", "--batch", "100"], stdin=records)
        assert re.search(rb"\r\x1b\[Ksluice produce: \d+ records to progress", shown), shown
        assert shown.endswith(b"\r\x1b[Ksent 20000 records to progress\r\n"), shown[-80:]
        assert _on_terminal(["produce", *bootstrap, "quiet", "--quiet"], stdin=records) == b""
        piped = subprocess.run([str(sluice_binary()), "produce", *bootstrap, "piped"], input=records, capture_output=True, timeout=60)
        assert piped.returncode == 0 and piped.stderr == b"sent 20000 records to piped\n"


def test_benchmark_progress_on_a_terminal_only() -> None:
    """A benchmark's progress line names its phase or what it waits for, with the time spent;
    its figures each start on a cleared line. Piped or with --quiet, only the figures."""
    args = ["bench", "kafka-json", "--events", "60000", "--no-duckdb"]
    shown = _on_terminal(args)
    assert re.search(rb"\r\x1b\[K  \xe2\x80\xa6 .+ \(\d+ s\)", shown), shown[:400]
    figures = [line for line in shown.split(b"\r\n") if b"events/s" in line]
    assert len(figures) >= 2 and all(b"\xe2\x80\xa6" not in line.split(b"\r\x1b[K")[-1] for line in figures), figures

    piped = subprocess.run([str(sluice_binary()), *args], capture_output=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert b"\x1b" not in piped.stdout + piped.stderr and b"events/s" in piped.stdout

    quiet = _on_terminal([*args, "--quiet"])
    assert b"\x1b[K" not in quiet and b"events/s" in quiet
