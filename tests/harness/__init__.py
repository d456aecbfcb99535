"""Test harness for Sluice: starts real servers on loopback ports and stops them by PID.

- `SluiceServer` runs `.build/debug/sluice serve` (or `$SLUICE_BIN`) on a free port.
- `PostgresServer` runs a throwaway PostgreSQL cluster, the oracle for SQL behaviour.
- `MotoServer` runs moto's S3 server, the local S3 that S3 warehouses are tested against.
- `Endpoint` is what a test connects to: host, port, user, database.
"""

from .endpoint import Endpoint
from .moto_server import MotoServer
from .ports import free_port, wait_for_port
from .postgres_server import PostgresServer, find_postgres_bindir
from .sluice_server import SluiceServer, sluice_binary
from .targets import fresh_target, target_kind

__all__ = [
    "Endpoint",
    "MotoServer",
    "PostgresServer",
    "SluiceServer",
    "find_postgres_bindir",
    "free_port",
    "fresh_target",
    "sluice_binary",
    "target_kind",
    "wait_for_port",
]
