"""DuckDB with its extensions from the pinned `duckdb-ext-*` packages: none can be downloaded at
run time here, so DuckDB's `extension_directory` points at the packages' folder."""

from __future__ import annotations

from pathlib import Path

import duckdb


def duckdb_with(*extensions: str) -> duckdb.DuckDBPyConnection:
    """A new in-memory DuckDB connection with `extensions` (iceberg, avro, httpfs, tpch) loaded."""
    import duckdb_ext  # the duckdb-ext-* packages install their extensions under it

    directory = Path(list(duckdb_ext.__path__)[0]) / "extensions"
    assert directory.is_dir(), "the duckdb-ext-* packages are missing from the test environment"
    con = duckdb.connect(config={"extension_directory": str(directory), "autoinstall_known_extensions": False})
    for extension in extensions:
        con.execute(f"LOAD {extension}")
    return con
