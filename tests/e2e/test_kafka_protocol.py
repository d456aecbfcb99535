"""The Kafka wire protocol at the byte level, against Sluice's broker: ApiVersions and Metadata
answered as the spec says; a retried idempotent batch stored once; bad frame sizes, truncated
frames and garbage close only their own connection; unknown APIs and versions get an answer; 200
seeded mutated frames leave the broker serving. Every read has a socket timeout, so a broker that neither answers nor closes fails the
test instead of hanging it."""

from __future__ import annotations

import random
import socket
import struct

import pytest
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka_support import unique_topic
from kafka_wire import (API_API_VERSIONS, API_INIT_PRODUCER_ID, API_METADATA, ERROR_INVALID_TOPIC, ERROR_NONE, ERROR_OUT_OF_ORDER_SEQUENCE_NUMBER,
                        ERROR_UNSUPPORTED_VERSION, KafkaWireClient, Reader, api_versions_v0, array, decode_api_versions_v0,
                        decode_fetch_v4, decode_init_producer_id_v0, decode_metadata_v1, decode_produce_v3, fetch_v4, frame, int16,
                        init_producer_id_v0, int32, metadata_v1, produce_v3, record_batch_headers, request, request_header_v1, string)

from harness import SluiceServer

TIMEOUT = 10.0
MAX_REQUEST_BYTES = 100 * 1024 * 1024  # socket.request.max.bytes, Kafka's default and Sluice's

# The APIs the broker serves today, with the versions the clients in these tests use.
SERVED = {0: (3, 9), 1: (4, 12), 2: (1, 7), 3: (0, 12), 18: (0, 4), 19: (0, 7), 20: (0, 6), 22: (0, 4), 32: (0, 4), 37: (0, 3)}


@pytest.fixture(scope="module")
def address(kafka_server: SluiceServer) -> tuple[str, int]:
    return kafka_server.host, kafka_server.kafka_port


def _connect(address: tuple[str, int]) -> KafkaWireClient:
    return KafkaWireClient(*address, timeout=TIMEOUT)


def _assert_serving(client: KafkaWireClient, correlation_id: int = 77) -> None:
    """The connection answers an ApiVersions v0 request correctly."""
    answer = decode_api_versions_v0(client.call(api_versions_v0(correlation_id), correlation_id))
    assert answer.error_code == ERROR_NONE and API_API_VERSIONS in answer.ranges


def _assert_closed_without_answer(client: KafkaWireClient) -> None:
    try:
        data = client.read_to_end()
    except (TimeoutError, socket.timeout):
        pytest.fail(f"the broker neither answered nor closed the connection within {TIMEOUT:.0f} s")
    finally:
        client.close()
    assert data == b"", f"expected the connection to be closed without an answer, got {data[:64]!r}"


@pytest.fixture
def watcher(address, kafka_server: SluiceServer):
    """A connection opened before the test's bad input, which must keep working through it."""
    client = _connect(address)
    _assert_serving(client)
    yield client
    assert kafka_server.process.poll() is None, f"the broker exited with {kafka_server.process.returncode}"
    _assert_serving(client, 78)
    client.close()
    with _connect(address) as fresh:
        _assert_serving(fresh, 79)


# -- well-formed requests -----------------------------------------------------------------------

def test_api_versions_v0_lists_the_served_apis(address) -> None:
    with _connect(address) as client:
        answer = decode_api_versions_v0(client.call(api_versions_v0(123456), 123456))
    assert answer.error_code == ERROR_NONE
    assert {key: answer.ranges.get(key) for key in SERVED} == SERVED


def test_metadata_v1_names_the_broker_and_the_topics(address) -> None:
    topic = unique_topic("raw-metadata")
    with _connect(address) as client:
        # Asking for an unknown topic creates it (auto.create.topics.enable, default partitions 1).
        answer = decode_metadata_v1(client.call(metadata_v1(1, [topic]), 1))
        assert answer.brokers == [(1, address[0], address[1])]
        assert answer.controller_id == 1
        assert answer.topics == {topic: (ERROR_NONE, [(ERROR_NONE, 0, 1)])}
        # A null topic array asks for every topic.
        everything = decode_metadata_v1(client.call(metadata_v1(2, None), 2))
        assert everything.topics[topic] == (ERROR_NONE, [(ERROR_NONE, 0, 1)])
        # An illegal name is refused per topic, with no partitions.
        refused = decode_metadata_v1(client.call(metadata_v1(3, ["bad topic!", topic]), 3))
        assert refused.topics == {"bad topic!": (ERROR_INVALID_TOPIC, []), topic: (ERROR_NONE, [(ERROR_NONE, 0, 1)])}


def test_pipelined_requests_are_answered_in_order(address) -> None:
    with _connect(address) as client:
        client.send(api_versions_v0(10) + metadata_v1(11, []) + api_versions_v0(12) + metadata_v1(13, None))
        for correlation_id in (10, 11, 12, 13):
            body = client.response(correlation_id)
            if correlation_id % 2 == 0:
                assert decode_api_versions_v0(body).error_code == ERROR_NONE
            else:
                assert decode_metadata_v1(body).brokers == [(1, address[0], address[1])]


def _idempotent_batch(producer: tuple[int, int], sequence: int, values: list[bytes]) -> bytes:
    """A record batch of an idempotent producer, written by kafka-python's independent encoder."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=producer[0],
                                        producer_epoch=producer[1], base_sequence=sequence, batch_size=1 << 20)
    for offset, value in enumerate(values):
        assert builder.append(offset, 1_700_000_000_000 + offset, None, value, []) is not None
    return bytes(builder.build())


def test_retried_idempotent_batch_is_stored_once(address) -> None:
    topic = unique_topic("raw-idempotent")
    with _connect(address) as client:
        assert decode_metadata_v1(client.call(metadata_v1(1, [topic]), 1)).topics[topic][0] == ERROR_NONE
        error, producer_id, epoch = decode_init_producer_id_v0(client.call(init_producer_id_v0(2), 2))
        assert error == ERROR_NONE and producer_id >= 0 and epoch >= 0
        first = _idempotent_batch((producer_id, epoch), 0, [b"a", b"b", b"c"])
        second = _idempotent_batch((producer_id, epoch), 3, [b"d", b"e"])

        def produce(correlation_id: int, batch: bytes) -> tuple[int, int]:
            return decode_produce_v3(client.call(produce_v3(correlation_id, topic, 0, batch), correlation_id))[(topic, 0)]

        assert produce(3, first) == (ERROR_NONE, 0)
        # A retry of a batch already written (same producer, epoch and sequences) succeeds with
        # the offset of the first write and is not stored again (Kafka's idempotent producer).
        assert produce(4, first) == (ERROR_NONE, 0)
        assert produce(5, second) == (ERROR_NONE, 3)
        assert produce(6, second) == (ERROR_NONE, 3)
        # A gap in the sequence is refused.
        assert produce(7, _idempotent_batch((producer_id, epoch), 9, [b"z"]))[0] == ERROR_OUT_OF_ORDER_SEQUENCE_NUMBER

        fetched = decode_fetch_v4(client.call(fetch_v4(8, topic, 0, 0), 8))[(topic, 0)]
        assert (fetched.error_code, fetched.high_watermark) == (ERROR_NONE, 5)
        assert [(h.base_offset, h.record_count, h.base_sequence) for h in record_batch_headers(fetched.records)] == [(0, 3, 0), (3, 2, 3)]


# -- bad frames ---------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [-1, -(2**31), MAX_REQUEST_BYTES + 1, 2**31 - 1], ids=["minus-one", "int32-min", "limit-plus-one", "int32-max"])
def test_bad_frame_size_closes_that_connection_only(address, watcher: KafkaWireClient, size: int) -> None:
    client = _connect(address)
    client.send(int32(size) + request_header_v1(API_API_VERSIONS, 0, 1))
    _assert_closed_without_answer(client)


def test_truncated_frames_followed_by_close_do_no_harm(address, watcher: KafkaWireClient) -> None:
    whole = metadata_v1(5, ["a", "b"])
    for cut in (1, 3, 4, 5, 9, len(whole) - 1):
        with _connect(address) as client:
            client.send(whole[:cut])
    # A complete request followed by the start of another: the first is still answered.
    with _connect(address) as client:
        client.send(api_versions_v0(6) + whole[:7])
        assert decode_api_versions_v0(client.response(6)).error_code == ERROR_NONE


GARBAGE = {
    "empty": b"",
    "shorter-than-a-header": b"\x00\x12\x00",
    "client-id-past-the-end": int16(API_API_VERSIONS) + int16(0) + int32(1) + int16(1000) + b"abc",
    "metadata-topic-count-int32-max": request_header_v1(API_METADATA, 1, 1) + int32(2**31 - 1),
    "metadata-topic-name-past-the-end": request_header_v1(API_METADATA, 1, 1) + int32(1) + int16(500) + b"abc",
    "metadata-negative-name-length": request_header_v1(API_METADATA, 1, 1) + int32(1) + int16(-7),
    # Metadata v9 is flexible: header v2, then a compact array whose unsigned varint never ends.
    "metadata-v9-endless-varint": request_header_v1(API_METADATA, 9, 1) + b"\x00" + b"\xff" * 16,
    "http": b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n",
}


@pytest.mark.parametrize("payload", GARBAGE.values(), ids=GARBAGE.keys())
def test_garbage_in_a_well_sized_frame_closes_the_connection(address, watcher: KafkaWireClient, payload: bytes) -> None:
    client = _connect(address)
    client.send(frame(payload))
    _assert_closed_without_answer(client)


ERROR_INVALID_REQUEST = 42
API_JOIN_GROUP, API_HEARTBEAT = 11, 12

# Requests whose responses carry one error for the whole request: a body that cannot be read is
# answered with INVALID_REQUEST there (`offset` is where the error code sits in the response),
# and the connection stays open.
UNREADABLE_BODIES = {
    # Heartbeat v0: group id, generation, member id; the group id claims 300 bytes.
    "heartbeat-v0-group-past-the-end": (request_header_v1(API_HEARTBEAT, 0, 77) + int16(300) + b"grp", 0),
    # JoinGroup v0 stops inside its session timeout.
    "join-group-v0-truncated": (request_header_v1(API_JOIN_GROUP, 0, 77) + string("g") + b"\x00\x01", 0),
    # InitProducerId v0: transactional id, then a timeout that is cut off.
    "init-producer-id-v0-truncated": (request_header_v1(API_INIT_PRODUCER_ID, 0, 77) + string(None) + b"\x00", 4),
    # ApiVersions v3 is flexible: header v2, then a compact string whose length never ends.
    "api-versions-v3-endless-varint": (request_header_v1(API_API_VERSIONS, 3, 77) + b"\x00" + b"\xff" * 12, 0),
}


@pytest.mark.parametrize("payload, offset", UNREADABLE_BODIES.values(), ids=UNREADABLE_BODIES.keys())
def test_unreadable_body_gets_invalid_request_where_the_response_has_one_error(address, payload: bytes, offset: int) -> None:
    with _connect(address) as client:
        body = client.call(frame(payload), 77)
        reader = Reader(body[offset:])
        assert reader.int16() == ERROR_INVALID_REQUEST
        _assert_serving(client)


# -- unknown APIs and versions ------------------------------------------------------------------

def test_unknown_api_key_is_answered_with_unsupported_version(address) -> None:
    with _connect(address) as client:
        body = client.call(request(999, 0, 4242), 4242)
        assert Reader(body).int16() == ERROR_UNSUPPORTED_VERSION
        _assert_serving(client)  # the connection stays usable


def _flexible_request(api_key: int, api_version: int, correlation_id: int, body: bytes) -> bytes:
    """A request at a flexible version: header v2 is header v1 plus (empty) tagged fields. Kafka
    picks the header version from the API's flexible versions, also for versions above those it
    serves, so a newer client sends this header."""
    return frame(request_header_v1(api_key, api_version, correlation_id) + b"\x00" + body)


def test_unsupported_api_versions_version_gets_a_v0_answer_with_error_35(address) -> None:
    with _connect(address) as client:
        # Kafka (KIP-511): ApiVersions at a version the broker does not know is answered at v0,
        # with UNSUPPORTED_VERSION and the supported ranges, so the client can retry.
        body = _compact_string("sluice-tests") + _compact_string("1.0") + b"\x00"
        answer = decode_api_versions_v0(client.call(_flexible_request(API_API_VERSIONS, 99, 5150, body), 5150))
        assert answer.error_code == ERROR_UNSUPPORTED_VERSION
        assert answer.ranges[API_API_VERSIONS] == SERVED[API_API_VERSIONS]
        assert answer.ranges[API_METADATA] == SERVED[API_METADATA]
        _assert_serving(client)


def test_unsupported_metadata_version_is_answered(address) -> None:
    with _connect(address) as client:
        body = client.call(_flexible_request(API_METADATA, 99, 31337, _uvarint(2) + _compact_string("x") + b"\x00"), 31337)
        assert Reader(body).int16() == ERROR_UNSUPPORTED_VERSION
        _assert_serving(client)


# -- fuzzing ------------------------------------------------------------------------------------

def _uvarint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _compact_string(value: str) -> bytes:
    data = value.encode()
    return _uvarint(len(data) + 1) + data


def _valid_request(rng: random.Random, correlation_id: int) -> bytes:
    """A well-formed ApiVersions (v0 or the flexible v3) or Metadata (v0, v1, v4) request."""
    kind = rng.randrange(6)
    topics = [rng.choice(["fuzz-a", "fuzz-b", "fuzz.c", "bad topic!", "x" * 250, ""]) for _ in range(rng.randrange(4))]
    if kind == 0:
        return api_versions_v0(correlation_id)
    if kind == 1:
        # ApiVersions v3: header v2 (header v1 + empty tagged fields), client software name and
        # version as compact strings, empty tagged fields.
        body = _compact_string("sluice-fuzz") + _compact_string("1.0") + b"\x00"
        return _flexible_request(API_API_VERSIONS, 3, correlation_id, body)
    if kind == 2:
        return request(API_METADATA, 0, correlation_id, array([string(t) for t in topics]))
    if kind == 3:
        return metadata_v1(correlation_id, topics)
    if kind == 4:
        return metadata_v1(correlation_id, None)
    # Metadata v4 adds allow_auto_topic_creation; keep it off so the fuzzer creates few topics.
    return request(API_METADATA, 4, correlation_id, array([string(t) for t in topics]) + b"\x00")


def _mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        choice = rng.randrange(8)
        if choice == 0 and out:
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        elif choice == 1 and out:
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif choice == 2:
            at = rng.randrange(len(out) + 1)
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif choice == 3 and len(out) > 4:
            at = rng.randrange(4, len(out))
            del out[at:at + rng.randint(1, 8)]
        elif choice == 4 and len(out) >= 4:
            # Fix the size prefix after other changes, so that the frame is read whole.
            out[0:4] = struct.pack("!i", len(out) - 4)
        elif choice == 5 and len(out) >= 4:
            out[0:4] = struct.pack("!i", rng.choice([0, 1, len(out), len(out) - 5, -1, 2**31 - 1, rng.randrange(-(2**31), 2**31)]))
        elif choice == 6 and len(out) >= 6:
            # Another API or version: the decoders of other requests see these bytes.
            out[4:6] = struct.pack("!h", rng.choice([rng.randrange(0, 75), rng.randrange(-(2**15), 2**15)]))
            out[6:8] = struct.pack("!h", rng.choice([0, 1, 3, 4, 9, 12, rng.randrange(-(2**15), 2**15)]))
        elif choice == 7 and len(out) > 4:
            del out[rng.randrange(4, len(out)):]
    return bytes(out)


def _complete_frames(data: bytes) -> int:
    """How many size-prefixed responses `data` holds; fails on a malformed or cut response."""
    count, position = 0, 0
    while position < len(data):
        assert position + 4 <= len(data), f"a response cut inside its size prefix: {data[position:]!r}"
        size, = struct.unpack_from("!i", data, position)
        assert 4 <= size and position + 4 + size <= len(data), f"response size {size} with {len(data) - position - 4} bytes sent"
        position += 4 + size
        count += 1
    return count


def test_fuzzed_frames_leave_the_broker_serving(address, kafka_server: SluiceServer, watcher: KafkaWireClient) -> None:
    rng = random.Random(20261123)
    answered = 0
    for round_ in range(200):
        data = _valid_request(rng, round_)
        if rng.random() < 0.3:
            data += _valid_request(rng, round_ + 1000)  # a second request, maybe mutated across the boundary
        data = _mutate(rng, data)
        with _connect(address) as client:
            client.send(data)
            client.sock.shutdown(socket.SHUT_WR)
            try:
                answered += _complete_frames(client.read_to_end())
            except (TimeoutError, socket.timeout):
                pytest.fail(f"round {round_}: no answer and no close within {TIMEOUT:.0f} s after {data[:80].hex()}")
        if round_ % 25 == 24:
            assert kafka_server.process.poll() is None, f"round {round_}: the broker exited with {kafka_server.process.returncode}"
            _assert_serving(watcher, 100 + round_)
    assert answered > 0, "no mutated request was answered at all: the mutations are too coarse to test decoding"

    # A real client still works: topic creation, produce and fetch.
    topic = unique_topic("after-fuzz")
    admin = KafkaAdminClient(bootstrap_servers=kafka_server.kafka_bootstrap, request_timeout_ms=10000)
    try:
        admin.create_topics({topic: {"num_partitions": 1, "replication_factor": 1}})
        assert topic in admin.list_topics()
    finally:
        admin.close()
    producer = KafkaProducer(bootstrap_servers=kafka_server.kafka_bootstrap, acks="all")
    for n in range(20):
        producer.send(topic, value=b"after %d" % n).get(timeout=10)
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=kafka_server.kafka_bootstrap, group_id=None, auto_offset_reset="earliest",
                             enable_auto_commit=False, consumer_timeout_ms=10000)
    try:
        consumer.assign([TopicPartition(topic, 0)])
        assert [record.value for _, record in zip(range(20), consumer)] == [b"after %d" % n for n in range(20)]
    finally:
        consumer.close()
