"""The broker's users: SASL/PLAIN and SASL/SCRAM-SHA-256 with the SQL users' passwords, on the
plain listener and on the SSL listener (`--kafka-ssl-listen`, the certificate of `--tls-cert`),
from kafka-python and confluent-kafka; bad credentials and clients that skip SASL get nothing;
topic ACLs made with confluent-kafka's admin client decide who reads and writes."""

from __future__ import annotations

import base64
import ssl
import urllib.request
import uuid
from typing import Iterator

import confluent_kafka
import kafka
import kafka.errors
import pytest
from confluent_kafka.admin import AclBinding, AclBindingFilter, AclOperation, AclPermissionType, AdminClient, ResourcePatternType, ResourceType

from harness import SluiceServer
from harness.ports import free_port
from source_support import connect
from tls_support import make_certificates

PASSWORDS = {"admin": "admin pass", "alice": "alice's pass"}


@pytest.fixture(scope="module")
def certificates(tmp_path_factory) -> dict:
    return make_certificates(tmp_path_factory.mktemp("kafka-tls"), names="DNS:localhost,IP:127.0.0.1")


@pytest.fixture(scope="module")
def server(certificates, tmp_path_factory) -> Iterator[SluiceServer]:
    """A server whose loopback clients, SQL and Kafka, must log in (as others would on a network)."""
    data = tmp_path_factory.mktemp("kafka-security") / "data"
    with SluiceServer(data_dir=data) as trusting, connect(trusting) as conn:
        conn.execute(f"CREATE USER admin WITH SUPERUSER PASSWORD '{PASSWORDS['admin']}'")
        conn.execute("CREATE USER alice WITH PASSWORD 'alice''s pass'")
        conn.execute("CREATE USER quiet WITH NOLOGIN PASSWORD 'quiet'")
    ssl_port = free_port()
    args = ["--auth-loopback", "scram", "--tls-cert", str(certificates["cert"]), "--tls-key", str(certificates["key"]),
            "--kafka-ssl-listen", f"127.0.0.1:{ssl_port}"]
    with SluiceServer(data_dir=data, extra_args=args) as sluice:
        sluice.kafka_ssl_bootstrap = f"127.0.0.1:{ssl_port}"
        yield sluice


def _kafka_python(server: SluiceServer, user: str, password: str, *, tls: bool, mechanism: str = "SCRAM-SHA-256", certificates=None) -> dict:
    settings = {
        "bootstrap_servers": server.kafka_ssl_bootstrap if tls else server.kafka_bootstrap,
        "security_protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
        "sasl_mechanism": mechanism, "sasl_plain_username": user, "sasl_plain_password": password,
        "request_timeout_ms": 10000, "bootstrap_timeout_ms": 5000,
    }
    if tls:
        settings["ssl_cafile"] = str(certificates["ca"])
    return settings


def _confluent(server: SluiceServer, user: str, password: str, *, tls: bool, certificates=None, mechanism: str = "SCRAM-SHA-256") -> dict:
    settings = {
        "bootstrap.servers": server.kafka_ssl_bootstrap if tls else server.kafka_bootstrap,
        "security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism, "sasl.username": user, "sasl.password": password,
    }
    if tls:
        settings["ssl.ca.location"] = str(certificates["ca"])
    return settings


def _consume_kafka_python(settings: dict, topic: str, count: int) -> list[bytes]:
    consumer = kafka.KafkaConsumer(topic, auto_offset_reset="earliest", consumer_timeout_ms=15000, group_id=f"g-{uuid.uuid4().hex[:8]}", **settings)
    values = []
    for message in consumer:
        values.append(message.value)
        if len(values) == count:
            break
    consumer.close()
    return values


def _consume_confluent(settings: dict, topic: str, count: int) -> list[bytes]:
    consumer = confluent_kafka.Consumer({**settings, "group.id": f"g-{uuid.uuid4().hex[:8]}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values = []
    for _ in range(300):
        message = consumer.poll(0.1)
        if message is None:
            continue
        assert message.error() is None, message.error()
        values.append(message.value())
        if len(values) == count:
            break
    consumer.close()
    return values


def test_kafka_python_scram_over_ssl(server: SluiceServer, certificates) -> None:
    settings = _kafka_python(server, "admin", PASSWORDS["admin"], tls=True, certificates=certificates)
    producer = kafka.KafkaProducer(**settings)
    for n in range(20):
        producer.send("kp_ssl", f"event {n}".encode())
    producer.flush(timeout=15)
    producer.close()
    assert _consume_kafka_python(settings, "kp_ssl", 20) == [f"event {n}".encode() for n in range(20)]


def test_confluent_kafka_scram_over_ssl(server: SluiceServer, certificates) -> None:
    settings = _confluent(server, "admin", PASSWORDS["admin"], tls=True, certificates=certificates)
    producer = confluent_kafka.Producer(settings)
    delivered = []
    for n in range(20):
        producer.produce("ck_ssl", f"record {n}".encode(), on_delivery=lambda error, message: delivered.append(error))
    assert producer.flush(15) == 0
    assert delivered == [None] * 20
    assert _consume_confluent(settings, "ck_ssl", 20) == [f"record {n}".encode() for n in range(20)]


def test_plain_mechanism_on_the_plain_listener(server: SluiceServer) -> None:
    settings = _kafka_python(server, "admin", PASSWORDS["admin"], tls=False, mechanism="PLAIN")
    producer = kafka.KafkaProducer(**settings)
    producer.send("plain_sasl", b"hello").get(timeout=15)
    producer.close()
    assert _consume_kafka_python(settings, "plain_sasl", 1) == [b"hello"]


def test_bad_credentials_and_clients_without_sasl_get_nothing(server: SluiceServer, certificates) -> None:
    before = _failed_logins(server, certificates)
    for user, password in (("admin", "wrong"), ("mallory", "x"), ("quiet", "quiet")):
        with pytest.raises(kafka.errors.KafkaError):
            kafka.KafkaProducer(**_kafka_python(server, user, password, tls=True, certificates=certificates))
        producer = confluent_kafka.Producer({**_confluent(server, user, password, tls=False), "message.timeout.ms": 2000})
        errors = []
        producer.produce("never", b"x", on_delivery=lambda error, message: errors.append(error))
        producer.flush(10)
        assert errors and errors[0] is not None, (user, errors)
        with pytest.raises(confluent_kafka.KafkaException) as raised:
            producer.list_topics(timeout=3)
        assert raised.value.args[0].code() in (confluent_kafka.KafkaError._AUTHENTICATION, confluent_kafka.KafkaError._TRANSPORT,
                                               confluent_kafka.KafkaError._TIMED_OUT), raised.value
    # A client that skips SASL where it is required gets no answer to anything but ApiVersions.
    with pytest.raises(kafka.errors.KafkaError):
        kafka.KafkaProducer(bootstrap_servers=server.kafka_bootstrap, request_timeout_ms=5000, bootstrap_timeout_ms=5000,
                            max_block_ms=5000).send("never", b"x").get(timeout=10)
    assert _failed_logins(server, certificates) >= before + 6


def test_topic_acls_decide_who_reads_and_writes(server: SluiceServer, certificates) -> None:
    topic = f"orders_{uuid.uuid4().hex[:6]}"
    admin_settings = _confluent(server, "admin", PASSWORDS["admin"], tls=True, certificates=certificates)
    admin = AdminClient(admin_settings)
    producer = confluent_kafka.Producer(admin_settings)
    producer.produce(topic, b"from admin")
    assert producer.flush(15) == 0
    alice = _confluent(server, "alice", PASSWORDS["alice"], tls=True, certificates=certificates)

    def alice_produces() -> object:
        errors = []
        p = confluent_kafka.Producer({**alice, "message.timeout.ms": 5000})
        p.produce(topic, b"from alice", on_delivery=lambda error, message: errors.append(error))
        p.flush(10)
        return errors[0] if errors else "no report"

    refused = alice_produces()
    assert refused is not None and refused.code() == confluent_kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED, refused
    # Alice may not grant herself anything.
    own = AdminClient(alice).create_acls([AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:alice", "*",
                                                     AclOperation.WRITE, AclPermissionType.ALLOW)])
    with pytest.raises(confluent_kafka.KafkaException):
        for future in own.values():
            future.result(timeout=15)
    write = AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW)
    for future in admin.create_acls([write]).values():
        future.result(timeout=15)
    assert alice_produces() is None
    consumer = confluent_kafka.Consumer({**alice, "group.id": f"g-{uuid.uuid4().hex[:8]}", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    message = None
    for _ in range(100):
        message = consumer.poll(0.1)
        if message is not None:
            break
    consumer.close()
    assert message is not None and message.error() is not None
    assert message.error().code() == confluent_kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED, message.error()
    read = AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:alice", "*", AclOperation.READ, AclPermissionType.ALLOW)
    for future in admin.create_acls([read]).values():
        future.result(timeout=15)
    assert _consume_confluent(alice, topic, 2) == [b"from admin", b"from alice"]
    listed = admin.describe_acls(AclBindingFilter(ResourceType.TOPIC, topic, ResourcePatternType.ANY, None, None,
                                                  AclOperation.ANY, AclPermissionType.ANY)).result(timeout=15)
    assert sorted(b.operation for b in listed) == sorted([AclOperation.WRITE, AclOperation.READ])
    for future in admin.delete_acls([AclBindingFilter(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, "User:alice", None,
                                                      AclOperation.WRITE, AclPermissionType.ANY)]).values():
        future.result(timeout=15)
    refused = alice_produces()
    assert refused is not None and refused.code() == confluent_kafka.KafkaError.TOPIC_AUTHORIZATION_FAILED, refused


def _failed_logins(server: SluiceServer, certificates) -> float:
    """`sluice_failed_logins_total`, from /metrics over HTTPS (the server has a certificate)."""
    request = urllib.request.Request(server.http_base.replace("http://", "https://") + "/metrics")
    request.add_header("Authorization", "Basic " + base64.b64encode(f"admin:{PASSWORDS['admin']}".encode()).decode())
    with urllib.request.urlopen(request, timeout=10, context=ssl.create_default_context(cafile=str(certificates["ca"]))) as response:
        text = response.read().decode()
    return float(next(line for line in text.splitlines() if line.startswith("sluice_failed_logins_total")).split()[-1])
