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
    # The C system libraries (module maps only, no Swift) import nothing.
    "CZlib": set(),
    "CSnappy": set(),
    "CLZ4": set(),
    "CZstd": set(),
    # Our one C target: the processor's CRC-32C instruction.
    "CCRC32C": set(),
    "SluiceCore": set(),
    # The command-line parser (options, flags, arguments, subcommands, help) depends on nothing.
    "SluiceCommandLine": set(),
    # Users, SCRAM verifiers and the SCRAM exchange: no network, no protocol framing.
    "SluiceAuth": {"SluiceCore", "SluiceCrypto", "NIOCore"},
    # Codecs may import the C libraries and nothing of ours.
    "SluiceCodecs": {"CZlib", "CSnappy", "CLZ4", "CZstd", "CCRC32C"},
    # System-library target (module map only): librdkafka.
    "CRdKafka": set(),
    "CLibPQ": set(),
    # System-library target (module map only): OpenSSL's libcrypto.
    "CLibCrypto": set(),
    # System-library target (module map only): OpenSSL's libssl.
    "CLibSSL": set(),
    # SHA-256, HMAC, AES-GCM and random bytes over libcrypto.
    "SluiceCrypto": {"SluiceCore", "CLibCrypto"},
    "SluiceKafkaProtocol": {"SluiceCore", "SluiceCodecs", "NIOCore"},
    # The broker never imports the SQL engine: it could run alone.
    "SluiceBroker": {"SluiceCore", "SluiceAuth", "SluiceCodecs", "SluiceKafkaProtocol", "NIOCore", "NIOPosix"},
    "SluiceSQL": {"SluiceCore"},
    # (Avro's deflate blocks are raw deflate, which zlib's C API gives and SluiceCodecs does not.)
    "SluiceFormats": {"SluiceCore", "SluiceCodecs", "CZlib"},
    "SluiceExpr": {"SluiceCore"},
    "SluicePlan": {"SluiceCore", "SluiceExpr"},
    "SluiceState": {"SluiceCore", "SluiceCodecs"},
    # A thin wrapper over librdkafka.
    "SluiceKafkaClient": {"SluiceCore", "CRdKafka"},
    # A thin wrapper over libpq (the Postgres sinks and the CDC source).
    "SluicePostgresClient": {"SluiceCore", "CLibPQ"},
    "SluicePlanner": {"SluiceCore", "SluiceExpr", "SluiceSQL", "SluicePlan"},
    "SluiceBatch": {"SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"},
    "SluiceDataflow": {"SluiceCore", "SluiceExpr", "SluicePlan", "SluiceState"},
    "SluicePGWire": {"SluiceCore", "SluiceAuth", "NIOCore", "NIOPosix"},
    # TLS over the system's OpenSSL; HTTP/1.1's parser and codecs, and the client over NIO (S3,
    # catalogs, registries).
    "SluiceNet": {"SluiceCore", "CLibSSL", "NIOCore", "NIOPosix"},
    # Iceberg: metadata, manifests, scans, maintenance, the REST catalog (framework-free), local
    # warehouses and S3's signing (SluiceCrypto's SHA-256 and HMAC). Nothing of the network.
    "SluiceLakehouse": {"SluiceCore", "SluiceCodecs", "SluiceCrypto", "SluiceFormats"},
    # The S3 client and remote REST catalogs' client over SluiceNet's HTTP client.
    "SluiceLakehouseClients": {"SluiceCore", "SluiceLakehouse", "SluiceNet", "NIOCore"},
    # HTTP/1.1 servers over SluiceNet's codecs: a router with middleware, authentication and TLS, the
    # Iceberg REST catalog's server.
    "SluiceHTTP": {"SluiceCore", "SluiceAuth", "SluiceLakehouse", "SluiceNet", "NIOCore", "NIOPosix"},
    # Generators of the seeds' events and Nexmark's; the command line sends them on.
    "SluiceGen": {"SluiceCore"},
    # Connectors implement Dataflow's source protocol; the engine never imports them.
    # (SluiceBatch: an upsert sink indexes an epoch's keys with the batch GROUP BY's GroupTable.)
    # (SluiceKafkaProtocol: a Kafka sink finishes a transaction left prepared before a restart
    # with the protocol's wire client, which librdkafka cannot do.)
    "SluiceConnectors": {
        "SluiceCore", "SluiceExpr", "SluiceState", "SluiceDataflow", "SluiceBatch", "SluiceFormats", "SluiceKafkaClient", "SluiceKafkaProtocol",
        "SluiceLakehouse", "SluiceLakehouseClients", "SluicePostgresClient", "NIOCore",
    },
    # (Formats: COPY reads and writes PostgreSQL's text and CSV formats.) Not SluiceConnectors:
    # the server is given its connectors (Dataflow's ConnectorKit) by what starts it, so the two
    # compile side by side.
    "SluiceServer": {
        "SluiceCore", "SluiceAuth", "SluiceCrypto", "SluiceSQL", "SluiceExpr", "SluicePlan", "SluicePlanner", "SluiceState", "SluiceBatch",
        "SluiceDataflow", "SluiceFormats", "SluicePGWire", "SluiceBroker", "SluiceLakehouse", "SluiceLakehouseClients", "SluiceHTTP", "NIOCore", "NIOPosix",
        # TLS on every port (SluiceNet's handler over OpenSSL) and HTTP's heads.
        "SluiceNet",
        # The ksqlDB door's push queries read their sink's topic back.
        "SluiceKafkaClient",
    },
    # The broker benchmark drives the broker with the Kafka client the tools use; the JSON
    # benchmark times the decoder directly.
    "SluiceBench": {
        "SluiceCore", "SluiceAuth", "SluiceCodecs", "SluiceFormats", "SluiceGen", "SluiceServer", "SluicePGWire", "SluiceBroker", "SluiceKafkaProtocol",
        "SluiceKafkaClient", "SluiceConnectors", "SluiceLakehouse", "SluicePostgresClient", "SluiceNet", "NIOCore",
    },
    # The command line may reach any layer but the benchmarks (its fuzz drivers call the parser
    # and the wire decoder and the JSON decoder directly).
    "SluiceCLI": {
        "SluiceCore", "SluiceSQL", "SluiceFormats", "SluicePGWire", "SluiceServer", "SluiceConnectors", "SluiceGen", "SluiceBroker",
        "SluiceKafkaProtocol", "SluiceKafkaClient", "SluiceState", "SluicePostgresClient", "NIOCore", "SluiceCommandLine", "SluiceNet",
    },
    # The executable: the command line and `sluice bench`'s commands.
    "sluice": {"SluiceCLI", "SluiceBench", "SluiceCommandLine", "SluiceServer", "SluiceState"},
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
