"""Where a test connects: a server's address, user and database."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Endpoint:
    """A database a client can connect to.

    `kind` is `"sluice"` or `"postgres"`; `log` returns the server's log so far (for failure
    reports); `interrupt` forcibly ends every session on this database (a watchdog's last resort
    against a hung server).
    """

    host: str
    port: int
    user: str = "root"
    dbname: str = "dev"
    kind: str = "sluice"
    log: Callable[[], str] = field(default=lambda: "", compare=False, repr=False)
    interrupt: Callable[[], None] = field(default=lambda: None, compare=False, repr=False)

    @property
    def conninfo(self) -> str:
        """A libpq connection string (psycopg, psql)."""
        return f"host={self.host} port={self.port} user={self.user} dbname={self.dbname} connect_timeout=10"

    @property
    def url(self) -> str:
        """A postgresql:// URL without a driver name."""
        return f"postgresql://{self.user}@{self.host}:{self.port}/{self.dbname}"

    def psql_args(self) -> list[str]:
        """`psql` arguments that connect here without reading ~/.psqlrc or prompting."""
        return ["psql", "-X", "-w", "-h", self.host, "-p", str(self.port), "-U", self.user, "-d", self.dbname]


def command_tag(endpoint: "Endpoint", postgres_tag: str) -> str:
    """The command tag the endpoint sends: Sluice uses RisingWave's spelling for DDL
    (`CREATE_TABLE`, `DROP_TABLE`), PostgreSQL separates the words with a space."""
    if endpoint.kind == "sluice" and postgres_tag.startswith(("CREATE ", "DROP ")):
        return postgres_tag.replace(" ", "_")
    return postgres_tag
