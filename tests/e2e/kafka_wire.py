"""A minimal Kafka protocol client over a raw socket, for tests that send what no client would.

Written by hand from the Kafka protocol guide (https://kafka.apache.org/protocol): "Common Request
and Response Structure", "Protocol Primitive Types", the request header v1 and the non-flexible
versions used here: ApiVersions v0, Metadata v1, Fetch v4, Produce v3 and InitProducerId v0. The record batch header layout is
from "Record Batch" in the Kafka documentation (https://kafka.apache.org/documentation/#recordbatch).
Only big-endian fixed-width fields and int16-length strings: no flexible (tagged) versions.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from socket_client import Closed, SocketClient

API_PRODUCE = 0
API_FETCH = 1
API_METADATA = 3
API_FIND_COORDINATOR = 10
API_INIT_PRODUCER_ID = 22
API_API_VERSIONS = 18

ERROR_NONE = 0
ERROR_OFFSET_OUT_OF_RANGE = 1
ERROR_INVALID_TOPIC = 17
ERROR_UNSUPPORTED_VERSION = 35
ERROR_OUT_OF_ORDER_SEQUENCE_NUMBER = 45

COMPRESSION_CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


# -- encoding ---------------------------------------------------------------------------------

def int8(value: int) -> bytes:
    return struct.pack("!b", value)


def int16(value: int) -> bytes:
    return struct.pack("!h", value)


def int32(value: int) -> bytes:
    return struct.pack("!i", value)


def int64(value: int) -> bytes:
    return struct.pack("!q", value)


def string(value: str | None) -> bytes:
    """STRING / NULLABLE_STRING: an int16 length (-1 for null), then UTF-8 bytes."""
    if value is None:
        return int16(-1)
    data = value.encode()
    return int16(len(data)) + data


def array(items: list[bytes] | None) -> bytes:
    """ARRAY: an int32 count (-1 for null), then the encoded items."""
    if items is None:
        return int32(-1)
    return int32(len(items)) + b"".join(items)


def request_header_v1(api_key: int, api_version: int, correlation_id: int, client_id: str | None = "sluice-tests") -> bytes:
    """Request Header v1: request_api_key INT16, request_api_version INT16, correlation_id INT32,
    client_id NULLABLE_STRING."""
    return int16(api_key) + int16(api_version) + int32(correlation_id) + string(client_id)


def frame(payload: bytes) -> bytes:
    """A request on the wire: an int32 size, then the header and body."""
    return int32(len(payload)) + payload


def request(api_key: int, api_version: int, correlation_id: int, body: bytes = b"") -> bytes:
    return frame(request_header_v1(api_key, api_version, correlation_id) + body)


def api_versions_v0(correlation_id: int) -> bytes:
    """ApiVersions Request (Version: 0) has an empty body."""
    return request(API_API_VERSIONS, 0, correlation_id)


def metadata_v1(correlation_id: int, topics: list[str] | None) -> bytes:
    """Metadata Request (Version: 1) => [topics] (name STRING); a null array asks for all topics."""
    return request(API_METADATA, 1, correlation_id, array(None if topics is None else [string(t) for t in topics]))


def fetch_v4(correlation_id: int, topic: str, partition: int, offset: int, max_bytes: int = 1 << 20, max_wait_ms: int = 0) -> bytes:
    """Fetch Request (Version: 4) => replica_id max_wait_ms min_bytes max_bytes isolation_level
    [topics (topic [partitions (partition fetch_offset partition_max_bytes)])]."""
    partitions = array([int32(partition) + int64(offset) + int32(max_bytes)])
    body = int32(-1) + int32(max_wait_ms) + int32(1) + int32(max_bytes) + int8(0) + array([string(topic) + partitions])
    return request(API_FETCH, 4, correlation_id, body)


def init_producer_id_v0(correlation_id: int) -> bytes:
    """InitProducerId Request (Version: 0) => transactional_id NULLABLE_STRING transaction_timeout_ms INT32."""
    return request(API_INIT_PRODUCER_ID, 0, correlation_id, string(None) + int32(60000))


def produce_v3(correlation_id: int, topic: str, partition: int, records: bytes, acks: int = -1) -> bytes:
    """Produce Request (Version: 3) => transactional_id acks timeout_ms [topic_data (name
    [partition_data (index records)])]; `records` are whole record batches (RECORDS: int32 length)."""
    partitions = array([int32(partition) + int32(len(records)) + records])
    return request(API_PRODUCE, 3, correlation_id, string(None) + int16(acks) + int32(10000) + array([string(topic) + partitions]))


# -- decoding ---------------------------------------------------------------------------------

class Reader:
    """Reads primitive types off a response body; raises `struct.error`/`ValueError` past its end."""

    def __init__(self, data: bytes):
        self.data = data
        self.position = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.position + count > len(self.data):
            raise ValueError(f"read of {count} bytes at {self.position} past the end ({len(self.data)} bytes)")
        chunk = self.data[self.position:self.position + count]
        self.position += count
        return chunk

    def _unpack(self, fmt: str, size: int) -> int:
        return struct.unpack(fmt, self.take(size))[0]

    def int8(self) -> int:
        return self._unpack("!b", 1)

    def int16(self) -> int:
        return self._unpack("!h", 2)

    def int32(self) -> int:
        return self._unpack("!i", 4)

    def int64(self) -> int:
        return self._unpack("!q", 8)

    def string(self) -> str | None:
        length = self.int16()
        return None if length < 0 else self.take(length).decode()

    def bytes_(self) -> bytes | None:
        length = self.int32()
        return None if length < 0 else self.take(length)

    def array(self, item) -> list | None:
        count = self.int32()
        return None if count < 0 else [item(self) for _ in range(count)]

    @property
    def remaining(self) -> int:
        return len(self.data) - self.position


@dataclass
class ApiVersionsV0:
    error_code: int
    ranges: dict[int, tuple[int, int]]


def decode_api_versions_v0(body: bytes) -> ApiVersionsV0:
    """ApiVersions Response (Version: 0) => error_code INT16 [api_keys (api_key min_version max_version)]."""
    reader = Reader(body)
    error = reader.int16()
    keys = reader.array(lambda r: (r.int16(), r.int16(), r.int16())) or []
    assert reader.remaining == 0, f"{reader.remaining} bytes after the ApiVersions v0 response"
    return ApiVersionsV0(error, {key: (low, high) for key, low, high in keys})


@dataclass
class MetadataV1:
    brokers: list[tuple[int, str, int]]
    controller_id: int
    topics: dict[str, tuple[int, list[tuple[int, int, int]]]] = field(default_factory=dict)  # name → (error, [(error, partition, leader)])


def decode_metadata_v1(body: bytes) -> MetadataV1:
    """Metadata Response (Version: 1) => [brokers (node_id host port rack)] controller_id
    [topics (error_code name is_internal [partitions (error_code partition_index leader_id
    [replica_nodes] [isr_nodes])])]."""
    reader = Reader(body)
    brokers = reader.array(lambda r: (r.int32(), r.string(), r.int32(), r.string())) or []
    controller = reader.int32()

    def partition(r: Reader):
        error, index, leader = r.int16(), r.int32(), r.int32()
        r.array(Reader.int32)
        r.array(Reader.int32)
        return error, index, leader

    def topic(r: Reader):
        error, name, _internal = r.int16(), r.string(), r.int8()
        return name, (error, r.array(partition) or [])

    topics = dict(reader.array(topic) or [])
    assert reader.remaining == 0, f"{reader.remaining} bytes after the Metadata v1 response"
    return MetadataV1([(node, host, port) for node, host, port, _rack in brokers], controller, topics)


@dataclass
class FetchedPartition:
    error_code: int
    high_watermark: int
    records: bytes


def decode_fetch_v4(body: bytes) -> dict[tuple[str, int], FetchedPartition]:
    """Fetch Response (Version: 4) => throttle_time_ms [responses (topic [partitions
    (partition_index error_code high_watermark last_stable_offset [aborted_transactions
    (producer_id first_offset)] records)])]."""
    reader = Reader(body)
    reader.int32()
    out: dict[tuple[str, int], FetchedPartition] = {}
    for _ in range(reader.int32()):
        topic = reader.string()
        for _ in range(reader.int32()):
            index, error, high_watermark = reader.int32(), reader.int16(), reader.int64()
            reader.int64()
            reader.array(lambda r: (r.int64(), r.int64()))
            out[(topic, index)] = FetchedPartition(error, high_watermark, reader.bytes_() or b"")
    return out


def decode_init_producer_id_v0(body: bytes) -> tuple[int, int, int]:
    """InitProducerId Response (Version: 0) => throttle_time_ms error_code producer_id producer_epoch:
    (error_code, producer_id, producer_epoch)."""
    reader = Reader(body)
    reader.int32()
    return reader.int16(), reader.int64(), reader.int16()


def decode_produce_v3(body: bytes) -> dict[tuple[str, int], tuple[int, int]]:
    """Produce Response (Version: 3) => [responses (name [partition_responses (index error_code
    base_offset log_append_time_ms)])] throttle_time_ms: (topic, partition) → (error_code, base_offset)."""
    reader = Reader(body)
    out = {}
    for _ in range(reader.int32()):
        topic = reader.string()
        for _ in range(reader.int32()):
            index, error, base_offset = reader.int32(), reader.int16(), reader.int64()
            reader.int64()
            out[(topic, index)] = (error, base_offset)
    reader.int32()
    assert reader.remaining == 0, f"{reader.remaining} bytes after the Produce v3 response"
    return out


@dataclass
class BatchHeader:
    base_offset: int
    record_count: int
    compression: str
    producer_id: int
    producer_epoch: int
    base_sequence: int


def record_batch_headers(records: bytes) -> list[BatchHeader]:
    """The headers of the whole record batches (magic 2) in a fetched `records` field: baseOffset
    INT64, batchLength INT32, partitionLeaderEpoch INT32, magic INT8, crc UINT32, attributes INT16
    (bits 0-2 the codec), lastOffsetDelta INT32, baseTimestamp INT64, maxTimestamp INT64,
    producerId INT64, producerEpoch INT16, baseSequence INT32, records count INT32. A partial
    batch at the end (allowed in a Fetch response) is ignored."""
    headers = []
    position = 0
    while position + 61 <= len(records):
        base_offset, batch_length = struct.unpack_from("!qi", records, position)
        if position + 12 + batch_length > len(records):
            break
        magic = records[position + 16]
        assert magic == 2, f"batch at offset {base_offset} has magic {magic}"
        attributes, = struct.unpack_from("!h", records, position + 21)
        producer_id, producer_epoch, base_sequence, count = struct.unpack_from("!qhii", records, position + 43)
        headers.append(BatchHeader(base_offset, count, COMPRESSION_CODECS.get(attributes & 7, f"codec {attributes & 7}"),
                                   producer_id, producer_epoch, base_sequence))
        position += 12 + batch_length
    return headers


# -- the connection ---------------------------------------------------------------------------

class KafkaWireClient(SocketClient):
    """One TCP connection to the broker (reads bounded by `timeout`; see `SocketClient`)."""

    def read_frame(self) -> bytes:
        """One response: its bytes after the size prefix (correlation id first)."""
        self._fill(4)
        size, = struct.unpack("!i", self.buffer[:4])
        assert 4 <= size <= 64 << 20, f"response size {size}"
        self._fill(4 + size)
        payload, self.buffer = self.buffer[4:4 + size], self.buffer[4 + size:]
        return payload

    def response(self, correlation_id: int) -> bytes:
        """The next response, which must carry `correlation_id` (response header v0); its body."""
        payload = self.read_frame()
        got, = struct.unpack("!i", payload[:4])
        assert got == correlation_id, f"response has correlation id {got}, expected {correlation_id}"
        return payload[4:]

    def call(self, data: bytes, correlation_id: int) -> bytes:
        self.send(data)
        return self.response(correlation_id)

    def read_to_end(self) -> bytes:
        """Everything the broker sends until it closes the connection."""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                data, self.buffer = self.buffer, b""
                return data
            self.buffer += chunk

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "KafkaWireClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
