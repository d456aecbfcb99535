"""Bounded memory, reduced for `make test`: `benchmarks/bounded_memory.py` (endless generated
bids and auctions with watermarks through an interval join, a window join, a group top-N, a
deduplication and a union) for a minute on the debug build. Resident memory and the views'
state at the end are within 20% of what they were after 20 seconds, while the views keep
reading at the generators' rate. The full run, ten minutes against two, is the benchmark's."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bounded_memory  # noqa: E402

RATE = 3000


def test_memory_and_state_stay_bounded_under_an_endless_stream() -> None:
    lines: list[str] = []
    result = bounded_memory.run(60, RATE, every=5, report=lines.append)
    warm, end = result.at(20), result.samples[-1]
    trace = "\n".join(lines)
    # Bids and a tenth as many auctions, read by the five views (the union and the joins read both).
    read_rate = (end.rows_in - warm.rows_in) / (end.seconds - warm.seconds)
    assert read_rate > 0.8 * 5 * 1.1 * RATE, f"the views fell behind the generators:\n{trace}"
    # The state swings by a quarter between samples as windows open and close (0.84 to 1.06 MiB
    # in one run), so the last three samples' mean is held to the 15-25 s samples' highest.
    warm_state = max(sample.state_bytes for sample in result.samples if 15 <= sample.seconds <= 25)
    end_state = sum(sample.state_bytes for sample in result.samples[-3:]) / 3
    assert end_state <= 1.2 * warm_state, f"state grew:\n{trace}"
    assert end.rss_bytes <= 1.2 * warm.rss_bytes, f"resident memory grew:\n{trace}"
