"""Imports point only down the layers of ARCHITECTURE.md's module table.

Each target may import the targets listed for it (and Swift's and Foundation's modules, and the
external packages named here); anything else is a layering violation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SOURCES = Path(__file__).resolve().parents[2] / "Sources"
SYSTEM = {"Foundation", "Synchronization", "Dispatch", "Glibc", "Musl", "Darwin", "_StringProcessing"}

# target -> the project targets and external modules it may import (ARCHITECTURE.md).
ALLOWED: dict[str, set[str]] = {
    "SluiceCore": set(),
    "SluiceCodecs": set(),
    "SluiceKafkaProtocol": {"SluiceCore", "SluiceCodecs", "NIOCore"},
    # The broker never imports the SQL engine: it could run alone.
    "SluiceBroker": {"SluiceCore", "SluiceCodecs", "SluiceKafkaProtocol", "NIOCore", "NIOPosix"},
    "SluiceSQL": {"SluiceCore"},
    "SluiceExpr": {"SluiceCore"},
    "SluicePlan": {"SluiceCore", "SluiceExpr"},
    "SluiceState": {"SluiceCore"},
    "SluicePlanner": {"SluiceCore", "SluiceExpr", "SluiceSQL", "SluicePlan"},
    "SluiceBatch": {"SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"},
    "SluiceDataflow": {"SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"},
    "SluicePGWire": {"SluiceCore", "NIOCore", "NIOPosix"},
    # Generators of the seeds' events and Nexmark's; the command line sends them on.
    "SluiceGen": {"SluiceCore"},
    # Connectors implement Dataflow's source protocol; the engine never imports them.
    "SluiceConnectors": {"SluiceCore", "SluiceDataflow"},
    "SluiceServer": {
        "SluiceCore", "SluiceSQL", "SluiceExpr", "SluicePlan", "SluicePlanner", "SluiceState", "SluiceBatch",
        "SluiceDataflow", "SluiceConnectors", "SluicePGWire", "SluiceBroker", "NIOCore", "NIOPosix",
    },
    # The broker benchmark drives the broker with the Kafka client the tools use.
    "SluiceBench": {"SluiceCore", "SluiceServer", "SluicePGWire", "SluiceBroker", "SluiceKafkaProtocol", "NIOCore"},
    # The command line sits on top and may reach any layer (its fuzz drivers call the parser and
    # the wire decoder directly).
    "sluice": {
        "SluiceCore", "SluiceSQL", "SluicePGWire", "SluiceServer", "SluiceBench", "SluiceGen", "SluiceBroker", "SluiceKafkaProtocol", "NIOCore",
        "ArgumentParser",
    },
}

IMPORT = re.compile(r"^\s*(?:@testable\s+|@_exported\s+|package\s+|internal\s+|public\s+)?import\s+(?:struct\s+|enum\s+|class\s+)?([A-Z_]\w*)\s*$", re.M)


def targets() -> list[str]:
    return sorted(p.name for p in SOURCES.iterdir() if p.is_dir())


def test_every_target_has_a_layer() -> None:
    assert sorted(ALLOWED) == targets()


@pytest.mark.parametrize("target", targets())
def test_imports_respect_layers(target: str) -> None:
    allowed = ALLOWED[target] | SYSTEM
    violations = []
    for path in sorted((SOURCES / target).rglob("*.swift")):
        for module in IMPORT.findall(path.read_text()):
            if module not in allowed:
                violations.append(f"{path.relative_to(SOURCES)} imports {module}")
    assert not violations, "\n".join(violations)
