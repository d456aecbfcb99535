"""SQLAlchemy 2.1 reflection of a plain (non-materialized) view, equal to PostgreSQL's."""

from __future__ import annotations

import sqlalchemy as sa

from harness import Endpoint


def test_plain_view_reflection(target: Endpoint, pg_oracle) -> None:
    oracle = pg_oracle.create_database("reflect_view")
    answers = []
    try:
        for endpoint in (target, oracle):
            engine = sa.create_engine(f"postgresql+psycopg://{endpoint.user}@{endpoint.host}:{endpoint.port}/{endpoint.dbname}")
            try:
                with engine.begin() as conn:
                    conn.execute(sa.text("CREATE TABLE base (id int PRIMARY KEY, name varchar NOT NULL, price numeric(10,2))"))
                    conn.execute(sa.text("CREATE VIEW cheap AS SELECT id, name FROM base WHERE price < 10"))
                inspector = sa.inspect(engine)
                view = sa.Table("cheap", sa.MetaData(), autoload_with=engine)
                answers.append({
                    "views": inspector.get_view_names(),
                    "materialized_views": inspector.get_materialized_view_names(),
                    "tables": inspector.get_table_names(),
                    "has_table": inspector.has_table("cheap"),
                    "columns": [(c["name"], repr(c["type"]), c["nullable"]) for c in inspector.get_columns("cheap")],
                    "autoload": [(c.name, repr(c.type)) for c in view.columns],
                })
                assert "price" in inspector.get_view_definition("cheap")
            finally:
                engine.dispose()
    finally:
        pg_oracle.drop_database(oracle)
    sluice, postgres = answers
    assert sluice == postgres
    assert sluice["views"] == ["cheap"] and sluice["tables"] == ["base"] and sluice["materialized_views"] == []
    assert sluice["columns"] == [("id", "INTEGER()", True), ("name", "VARCHAR()", True)]
