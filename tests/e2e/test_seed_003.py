"""Seed 003's cricket pipeline on Sluice alone, end to end.

Three upstreams carry three data shapes, as the seed's OLTP side does:
- ODI matches as CSV rows copied into a real PostgreSQL table, one transaction each, read by
  Postgres CDC (`connector = 'postgres-cdc'`, then `CREATE TABLE … FROM src TABLE …`);
- T20 matches as JSON documents in the shape Debezium's MongoDB connector writes them, produced
  to a topic and read by `FORMAT DEBEZIUM_MONGO ENCODE JSON`;
- Test matches as YAML files (cricsheet's layout) read by the file source.

Materialized views take the three apart into the seed's three streams (match metadata, players,
innings: its "topic segregation"), Kafka sinks write them to three topics, tables read each
topic back and Postgres sinks dump them into a second, real PostgreSQL (the warehouse). The
upstreams repeat themselves: the upstream PostgreSQL is killed and restarted while matches are
loaded, the Mongo topic's events are produced twice, a YAML file is uploaded again under another
name. The warehouse, read with psycopg as Metabase would, must equal the rows worked out here from
the generated matches, independently of Sluice, with no duplicate."""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import psycopg
import yaml
from kafka import KafkaProducer

from harness import PostgresServer, SluiceServer
from source_support import connect, wait_until

TEAMS = ["India", "Australia", "England", "South Africa", "New Zealand", "Pakistan", "Sri Lanka", "West Indies", "Bangladesh", "Afghanistan"]
VENUES = ["Eden Gardens", "Melbourne Cricket Ground", "Lord's", "Newlands", "Basin Reserve", "Gaddafi Stadium", "R Premadasa Stadium"]
SURNAMES = ["Sharma", "Smith", "Root", "de Kock", "Williamson", "Azam", "Mendis", "Holder", "Hasan", "Khan", "Patel", "Starc",
            "Broad", "Rabada", "Boult", "Afridi", "Perera", "Joseph", "Rahim", "Rashid", "Kohli", "Cummins", "Stokes", "Markram"]
INNINGS_NAMES = ["1st innings", "2nd innings", "3rd innings", "4th innings"]


@dataclass
class Innings:
    number: int
    team: str
    runs: int
    wickets: int
    overs: Decimal


@dataclass
class Match:
    match_id: str
    format: str
    teams: tuple[str, str]
    venue: str
    day: date
    players: dict[str, list[str]]
    innings: list[Innings] = field(default_factory=list)
    winner: str | None = None


def _overs(rng: random.Random, limit: int) -> Decimal:
    """Overs bowled, as cricket writes them: whole overs, then balls of the next (19.4)."""
    whole = rng.randint(limit // 2, limit - 1)
    return Decimal(f"{whole}.{rng.randint(0, 5)}")


def generate_matches(fmt: str, count: int, seed: int) -> list[Match]:
    """`count` matches of format `fmt` (ODI, T20 or Test), the same for the same seed."""
    rng = random.Random(f"{seed}-{fmt}")
    limit = {"T20": 20, "ODI": 50, "Test": 150}[fmt]
    matches = []
    for n in range(1, count + 1):
        home, away = rng.sample(TEAMS, 2)
        players = {team: [f"{chr(65 + k)} {rng.choice(SURNAMES)}-{team[:3]}{k}" for k in range(11)] for team in (home, away)}
        innings_count = 4 if fmt == "Test" and rng.random() < 0.7 else 2
        innings = [Innings(k + 1, (home, away)[k % 2], rng.randint(60, 420), rng.randint(0, 10), _overs(rng, limit)) for k in range(innings_count)]
        first = sum(i.runs for i in innings if i.team == home)
        second = sum(i.runs for i in innings if i.team == away)
        winner = None if first == second else home if first > second else away
        matches.append(Match(f"{fmt.lower()}-{seed}-{n:04d}", fmt, (home, away), rng.choice(VENUES),
                             date(2019, 1, 1) + timedelta(days=rng.randint(0, 1500)), players, innings, winner))
    return matches


# -- the three upstream shapes -----------------------------------------------------------------

ODI_COLUMNS = ["match_id", "match_date", "venue", "team_1", "team_2", "team_1_players", "team_2_players", "team_1_runs",
               "team_1_wickets", "team_1_overs", "team_2_runs", "team_2_wickets", "team_2_overs", "winner"]


def odi_csv_row(match: Match) -> str:
    """An ODI match as one CSV line of the upstream table's columns."""
    first, second = match.innings
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([
        match.match_id, match.day.isoformat(), match.venue, match.teams[0], match.teams[1], ";".join(match.players[match.teams[0]]),
        ";".join(match.players[match.teams[1]]), first.runs, first.wickets, first.overs, second.runs, second.wickets, second.overs,
        match.winner or ""])
    return out.getvalue()


def t20_document(match: Match, oid: str) -> dict:
    """A T20 match as a MongoDB document (cricsheet's JSON layout, innings summed up)."""
    return {
        "_id": {"$oid": oid}, "match_id": match.match_id,
        "info": {"match_type": "T20", "teams": list(match.teams), "venue": match.venue, "dates": [match.day.isoformat()],
                 "players": match.players, "outcome": {"winner": match.winner} if match.winner else {"result": "tie"}},
        "innings": [{"number": i.number, "team": i.team, "runs": i.runs, "wickets": i.wickets, "overs": float(i.overs)} for i in match.innings],
    }


def mongo_event(op: str, document: dict | None, oid: str) -> tuple[bytes, bytes]:
    """Debezium's MongoDB connector's key and value for a change of `document`."""
    key = json.dumps({"schema": None, "payload": {"id": json.dumps({"$oid": oid})}}).encode()
    value = {"schema": None, "payload": {
        "before": None, "after": json.dumps(document) if document is not None else None, "updateDescription": None,
        "source": {"version": "2.5.0.Final", "connector": "mongodb", "name": "atlas", "db": "cricket", "collection": "t20_matches", "rs": "atlas-0"},
        "op": op, "ts_ms": 1700000000000}}
    return key, json.dumps(value).encode()


def yaml_document(match: Match) -> str:
    """A Test match as a cricsheet-style YAML file (innings summed up)."""
    document = {
        "match_id": match.match_id,
        "meta": {"data_version": 0.9, "revision": 1},
        "info": {"match_type": "Test", "teams": list(match.teams), "venue": match.venue, "dates": [match.day.isoformat()],
                 "players": match.players, "outcome": {"winner": match.winner} if match.winner else {"result": "draw"}},
        "innings": [{INNINGS_NAMES[i.number - 1]: {"team": i.team, "runs": i.runs, "wickets": i.wickets, "overs": float(i.overs)}}
                    for i in match.innings],
    }
    return yaml.safe_dump(document, sort_keys=False)


# -- the pipeline ------------------------------------------------------------------------------

def pipeline_sql(upstream: PostgresServer, warehouse: PostgresServer, kafka: str, yaml_root: Path) -> list[str]:
    """Seed 003 as RisingWave users would write it: the three upstreams, the views splitting them
    into three streams, a Kafka sink per stream, and each topic dumped into the warehouse."""
    jdbc = f"jdbc:postgresql://{warehouse.host}:{warehouse.port}/dev?user=root"
    return [
        f"""CREATE SOURCE cricket_pg WITH (connector = 'postgres-cdc', hostname = '{upstream.host}', port = '{upstream.port}',
            username = 'root', password = '', database.name = 'dev', schema.name = 'public')""",
        """CREATE TABLE odi_matches (match_id varchar PRIMARY KEY, match_date date, venue varchar, team_1 varchar, team_2 varchar,
            team_1_players varchar, team_2_players varchar, team_1_runs int, team_1_wickets int, team_1_overs numeric,
            team_2_runs int, team_2_wickets int, team_2_overs numeric, winner varchar) FROM cricket_pg TABLE 'public.odi_matches'""",
        f"""CREATE TABLE t20_matches (_id varchar PRIMARY KEY, payload jsonb) WITH (connector = 'kafka', topic = 'atlas.cricket.t20_matches',
            properties.bootstrap.server = '{kafka}', scan.startup.mode = 'earliest') FORMAT DEBEZIUM_MONGO ENCODE JSON""",
        f"""CREATE TABLE test_matches (match_id varchar PRIMARY KEY, meta jsonb, info jsonb, innings jsonb) WITH (connector = 'posix_fs',
            posix_fs.root = '{yaml_root}', match_pattern = '*.yaml') FORMAT PLAIN ENCODE YAML""",
        # The seed's stream processing: each shape taken apart into the same three streams.
        """CREATE MATERIALIZED VIEW match_metadata AS
            SELECT match_id, 'ODI' AS format, team_1, team_2, venue, match_date, nullif(winner, '') AS winner FROM odi_matches
            UNION ALL
            SELECT payload->>'match_id', 'T20', payload->'info'->'teams'->>0, payload->'info'->'teams'->>1, payload->'info'->>'venue',
                (payload->'info'->'dates'->>0)::date, payload->'info'->'outcome'->>'winner' FROM t20_matches
            UNION ALL
            SELECT match_id, 'Test', info->'teams'->>0, info->'teams'->>1, info->>'venue', (info->'dates'->>0)::date,
                info->'outcome'->>'winner' FROM test_matches""",
        """CREATE MATERIALIZED VIEW players AS
            SELECT match_id, team_1 AS team, split_part(team_1_players, ';', n) AS player FROM odi_matches,
                generate_series(1, length(team_1_players) - length(replace(team_1_players, ';', '')) + 1) AS n
            UNION ALL
            SELECT match_id, team_2, split_part(team_2_players, ';', n) FROM odi_matches,
                generate_series(1, length(team_2_players) - length(replace(team_2_players, ';', '')) + 1) AS n
            UNION ALL
            SELECT t.payload->>'match_id', p.key, jsonb_array_elements_text(p.value) FROM t20_matches t, jsonb_each(t.payload->'info'->'players') p
            UNION ALL
            SELECT m.match_id, p.key, jsonb_array_elements_text(p.value) FROM test_matches m, jsonb_each(m.info->'players') p""",
        """CREATE MATERIALIZED VIEW innings AS
            SELECT match_id, 1 AS innings_no, team_1 AS team, team_1_runs AS runs, team_1_wickets AS wickets, team_1_overs AS overs FROM odi_matches
            UNION ALL
            SELECT match_id, 2, team_2, team_2_runs, team_2_wickets, team_2_overs FROM odi_matches
            UNION ALL
            SELECT t.payload->>'match_id', (i->>'number')::int, i->>'team', (i->>'runs')::int, (i->>'wickets')::int, (i->>'overs')::numeric
                FROM t20_matches t, jsonb_array_elements(t.payload->'innings') i
            UNION ALL
            SELECT m.match_id, substr(e.key, 1, 1)::int, e.value->>'team', (e.value->>'runs')::int, (e.value->>'wickets')::int,
                (e.value->>'overs')::numeric FROM test_matches m, jsonb_array_elements(m.innings) i, jsonb_each(i) e""",
        # Topic segregation: one topic per stream.
        *[f"""CREATE SINK {name}_to_kafka FROM {name} WITH (connector = 'kafka', properties.bootstrap.server = '{kafka}',
            topic = '{name}', primary_key = '{key}') FORMAT UPSERT ENCODE JSON""" for name, key in STREAM_KEYS.items()],
        # Each stream's topic dumped into the warehouse.
        f"""CREATE TABLE match_metadata_topic (match_id varchar PRIMARY KEY, format varchar, team_1 varchar, team_2 varchar, venue varchar,
            match_date date, winner varchar) WITH (connector = 'kafka', topic = 'match_metadata', properties.bootstrap.server = '{kafka}',
            properties.isolation.level = 'read_committed') FORMAT UPSERT ENCODE JSON""",
        f"""CREATE TABLE players_topic (match_id varchar, team varchar, player varchar, PRIMARY KEY (match_id, team, player))
            WITH (connector = 'kafka', topic = 'players', properties.bootstrap.server = '{kafka}',
            properties.isolation.level = 'read_committed') FORMAT UPSERT ENCODE JSON""",
        f"""CREATE TABLE innings_topic (match_id varchar, innings_no int, team varchar, runs int, wickets int, overs numeric,
            PRIMARY KEY (match_id, innings_no)) WITH (connector = 'kafka', topic = 'innings', properties.bootstrap.server = '{kafka}',
            properties.isolation.level = 'read_committed') FORMAT UPSERT ENCODE JSON""",
        *[f"""CREATE SINK {name}_to_warehouse FROM {name}_topic WITH (connector = 'jdbc', jdbc.url = '{jdbc}', table.name = '{name}',
            type = 'upsert', primary_key = '{key}')""" for name, key in STREAM_KEYS.items()],
    ]


STREAM_KEYS = {"match_metadata": "match_id", "players": "match_id,team,player", "innings": "match_id,innings_no"}

WAREHOUSE_DDL = [
    """CREATE TABLE match_metadata (match_id text PRIMARY KEY, format text NOT NULL, team_1 text, team_2 text, venue text,
        match_date date, winner text)""",
    "CREATE TABLE players (match_id text, team text, player text, PRIMARY KEY (match_id, team, player))",
    "CREATE TABLE innings (match_id text, innings_no int, team text, runs int, wickets int, overs numeric(5,1), PRIMARY KEY (match_id, innings_no))",
]

UPSTREAM_DDL = """CREATE TABLE odi_matches (match_id text PRIMARY KEY, match_date date NOT NULL, venue text, team_1 text, team_2 text,
    team_1_players text, team_2_players text, team_1_runs int, team_1_wickets int, team_1_overs numeric(4,1),
    team_2_runs int, team_2_wickets int, team_2_overs numeric(4,1), winner text)"""


def oracle(matches: list[Match]) -> dict[str, list[tuple]]:
    """What the warehouse must hold for `matches`, worked out from the generated matches."""
    return {
        "match_metadata": sorted((m.match_id, m.format, m.teams[0], m.teams[1], m.venue, m.day, m.winner) for m in matches),
        "players": sorted((m.match_id, team, player) for m in matches for team, names in m.players.items() for player in names),
        "innings": sorted((m.match_id, i.number, i.team, i.runs, i.wickets, i.overs) for m in matches for i in m.innings),
    }


def warehouse_rows(warehouse: PostgresServer) -> dict[str, list[tuple]]:
    """The warehouse's three tables, as a BI tool's PostgreSQL client reads them."""
    with psycopg.connect(warehouse.endpoint().conninfo, autocommit=True) as pg:
        return {
            "match_metadata": pg.execute("SELECT match_id, format, team_1, team_2, venue, match_date, winner FROM match_metadata ORDER BY 1").fetchall(),
            "players": pg.execute("SELECT match_id, team, player FROM players ORDER BY 1, 2, 3").fetchall(),
            "innings": pg.execute("SELECT match_id, innings_no, team, runs, wickets, overs FROM innings ORDER BY 1, 2").fetchall(),
        }


def _wait_for_warehouse(warehouse: PostgresServer, expected: dict[str, list[tuple]], what: str) -> None:
    last: dict = {}

    def equal():
        rows = warehouse_rows(warehouse)
        last.update({name: (len(rows[name]), len(expected[name])) for name in rows})
        return rows == expected
    try:
        wait_until(equal, 90, what)
    except AssertionError:
        rows = warehouse_rows(warehouse)
        differences = {name: (sorted(set(rows[name]) - set(expected[name]))[:3], sorted(set(expected[name]) - set(rows[name]))[:3]) for name in rows}
        raise AssertionError(f"{what}: warehouse rows vs expected {last}; extra/missing {differences}") from None


def test_seed_003_three_upstreams_three_topics_one_warehouse(tmp_path: Path) -> None:
    odi = generate_matches("ODI", 16, seed=3)
    t20 = generate_matches("T20", 16, seed=3)
    tests = generate_matches("Test", 8, seed=3)
    oids = {m.match_id: f"65bc9fb6c485f419{n:08x}" for n, m in enumerate(t20)}
    yaml_root = tmp_path / "test_matches"
    yaml_root.mkdir()

    with PostgresServer(logical=True) as upstream, PostgresServer() as warehouse, \
            SluiceServer(data_dir=tmp_path / "data", extra_args=["--barrier-interval-ms", "100"]) as server:
        upstream.execute("dev", UPSTREAM_DDL)
        for statement in WAREHOUSE_DDL:
            warehouse.execute("dev", statement)
        producer = KafkaProducer(bootstrap_servers=server.kafka_bootstrap, acks="all")

        def load_odi(matches: list[Match]) -> None:
            # Each match one transaction, as the seed's application server uploads them.
            with psycopg.connect(upstream.endpoint().conninfo, autocommit=True) as pg:
                for match in matches:
                    with pg.cursor().copy("COPY odi_matches FROM STDIN WITH (FORMAT csv)") as copy:
                        copy.write(odi_csv_row(match))

        def produce_t20(matches: list[Match]) -> None:
            for match in matches:
                key, value = mongo_event("c", t20_document(match, oids[match.match_id]), oids[match.match_id])
                producer.send("atlas.cricket.t20_matches", key=key, value=value)
            producer.flush()

        # Half of each upstream before the pipeline exists: CDC's snapshot, the topic's start, the first files.
        load_odi(odi[:8])
        produce_t20(t20[:8])
        for match in tests[:4]:
            (yaml_root / f"{match.match_id}.yaml").write_text(yaml_document(match))

        with connect(server) as conn:
            for statement in pipeline_sql(upstream, warehouse, server.kafka_bootstrap, yaml_root):
                conn.execute(statement)
            _wait_for_warehouse(warehouse, oracle(odi[:8] + t20[:8] + tests[:4]), "the first half of each upstream in the warehouse")

            # The upstream PostgreSQL crashes in the middle of the loading and comes back.
            load_odi(odi[8:12])
            upstream.restart(kill=True)
            load_odi(odi[12:])
            # The Mongo topic is produced again from the start (a connector that lost its offsets), then the rest.
            produce_t20(t20[:8])
            produce_t20(t20[8:])
            for match in tests[4:]:
                (yaml_root / f"{match.match_id}.yaml").write_text(yaml_document(match))
            # A file uploaded twice, under another name.
            (yaml_root / f"again-{tests[0].match_id}.yaml").write_text(yaml_document(tests[0]))
            everything = odi + t20 + tests
            _wait_for_warehouse(warehouse, oracle(everything), "every match once in the warehouse despite the repeats")
            # The repeats did arrive: 24 T20 events read for 16 matches, 9 YAML files for 8.
            assert conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 't20_matches'").fetchone()[0] == 24
            assert conn.execute("SELECT count(*) FROM t20_matches").fetchone() == (16,)
            assert conn.execute("SELECT rows_read FROM sluice_sources WHERE name = 'test_matches'").fetchone()[0] == 9
            assert conn.execute("SELECT count(*) FROM test_matches").fetchone() == (8,)

            # Corrections upstream flow through: an ODI result fixed, a T20 match scored again, one withdrawn.
            corrected = odi[3]
            corrected.winner = corrected.teams[1] if corrected.winner != corrected.teams[1] else corrected.teams[0]
            with psycopg.connect(upstream.endpoint().conninfo, autocommit=True) as pg:
                pg.execute("UPDATE odi_matches SET winner = %s WHERE match_id = %s", (corrected.winner, corrected.match_id))
                pg.execute("DELETE FROM odi_matches WHERE match_id = %s", (odi[5].match_id,))
            rescored = t20[2]
            rescored.innings[1].runs += 7
            key, value = mongo_event("u", t20_document(rescored, oids[rescored.match_id]), oids[rescored.match_id])
            producer.send("atlas.cricket.t20_matches", key=key, value=value)
            withdrawn = t20[4]
            key, value = mongo_event("d", None, oids[withdrawn.match_id])
            producer.send("atlas.cricket.t20_matches", key=key, value=value)
            producer.send("atlas.cricket.t20_matches", key=key, value=None)
            producer.flush()
            producer.close()
            remaining = [m for m in everything if m.match_id not in (odi[5].match_id, withdrawn.match_id)]
            _wait_for_warehouse(warehouse, oracle(remaining), "the corrections in the warehouse")

            # The three topics hold the streams too, and nothing was rejected on the way.
            counts = dict(conn.execute("SELECT name, rows_rejected FROM sluice_sources").fetchall())
            assert all(rejected == 0 for rejected in counts.values()), counts
            assert conn.execute("SELECT count(*) FROM players_topic").fetchone() == (len(oracle(remaining)["players"]),)
            assert conn.execute("SELECT count(DISTINCT format) FROM match_metadata").fetchone() == (3,)
