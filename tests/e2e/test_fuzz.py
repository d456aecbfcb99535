"""The fuzz drivers, bounded by iteration count and seeded so every run sees the same inputs.

`sluice fuzz` exits non-zero (the process traps) if any input crashes the parser, the wire
decoder and state machine, or the engine; longer runs are in docs/testing.md.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness import sluice_binary

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("target", "iterations", "seed"),
    [("sql", 60_000, 11), ("wire", 60_000, 12), ("engine", 20_000, 13), ("state", 100_000, 14), ("copy", 100_000, 15), ("csv", 100_000, 16)],
)
def test_fuzz_target_survives_seeded_inputs(target: str, iterations: int, seed: int) -> None:
    result = subprocess.run(
        [str(sluice_binary()), "fuzz", target, "--iterations", str(iterations), "--seed", str(seed), "--corpus", str(ROOT / "tests" / "slt")],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert f"sluice fuzz {target}: {iterations} inputs" in result.stdout
    assert "no crash" in result.stdout
