#!/usr/bin/env python3
"""Generates Sources/SluiceKafkaProtocol/Messages/<Name>.swift from Kafka's JSON message definitions.

Reads dev/kafka-messages/<Name>.json (Apache Kafka's definitions, `//` comments and all) and the
supported-version table in Messages/KafkaAPI.swift, and writes one Swift file per request and
response listed in GENERATED. Only the versions Sluice supports are read and written; a field that
no supported version carries is left out.

Where Sluice's Swift names or shapes differ from the JSON's, the tables below say so (renamed
fields and nested types, initializer defaults, parameter order).

    dev/generate-kafka-messages.py            write the files
    dev/generate-kafka-messages.py --check    exit 1 if a file on disk differs from what would be written
"""

import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFINITIONS = os.path.join(ROOT, "dev", "kafka-messages")
MESSAGES = os.path.join(ROOT, "Sources", "SluiceKafkaProtocol", "Messages")
INT_MAX16 = 32767  # "N+" versions run up to here

# The messages generated. The others in Messages/ are written by hand, their Swift shape being
# other than the definition's: DeleteTopicsRequest (v0–5's names and v6's topics as one list),
# LeaveGroupRequest (v0–2's member id as a one-member list), FindCoordinatorRequest and
# FindCoordinatorResponse (v0–3's single key and coordinator as v4's lists), DescribeAclsRequest and
# DeleteAclsRequest (the filter fields as the shared AclBindingFilter), and FetchResponse (written
# with its records spliced out of the buffer).
GENERATED = [
    "AddOffsetsToTxnRequest", "AddOffsetsToTxnResponse",
    "AddPartitionsToTxnRequest", "AddPartitionsToTxnResponse",
    "AlterConfigsRequest", "AlterConfigsResponse",
    "ApiVersionsRequest", "ApiVersionsResponse",
    "CreateAclsRequest", "CreateAclsResponse",
    "CreatePartitionsRequest", "CreatePartitionsResponse",
    "CreateTopicsRequest", "CreateTopicsResponse",
    "DeleteAclsResponse",
    "DeleteTopicsResponse",
    "DescribeAclsResponse",
    "DescribeConfigsRequest", "DescribeConfigsResponse",
    "DescribeGroupsRequest", "DescribeGroupsResponse",
    "EndTxnRequest", "EndTxnResponse",
    "FetchRequest",
    "HeartbeatRequest", "HeartbeatResponse",
    "IncrementalAlterConfigsRequest", "IncrementalAlterConfigsResponse",
    "InitProducerIdRequest", "InitProducerIdResponse",
    "JoinGroupRequest", "JoinGroupResponse",
    "LeaveGroupResponse",
    "ListGroupsRequest", "ListGroupsResponse",
    "ListOffsetsRequest", "ListOffsetsResponse",
    "MetadataRequest", "MetadataResponse",
    "OffsetCommitRequest", "OffsetCommitResponse",
    "OffsetFetchRequest", "OffsetFetchResponse",
    "ProduceRequest", "ProduceResponse",
    "SaslAuthenticateRequest", "SaslAuthenticateResponse",
    "SaslHandshakeRequest", "SaslHandshakeResponse",
    "SyncGroupRequest", "SyncGroupResponse",
    "TxnOffsetCommitRequest", "TxnOffsetCommitResponse",
]

# Field renames: "<Swift struct>.<JSON field name>" (struct as Swift names it) -> Swift property name.
RENAMES = {
    "AddPartitionsToTxnRequest.V3AndBelowTransactionalId": "transactionalID",
    "AddPartitionsToTxnRequest.V3AndBelowProducerId": "producerID",
    "AddPartitionsToTxnRequest.V3AndBelowProducerEpoch": "producerEpoch",
    "AddPartitionsToTxnRequest.V3AndBelowTopics": "topics",
    "AddPartitionsToTxnResponse.ResultsByTopicV3AndBelow": "resultsByTopic",
    "Creation.ResourcePatternType": "patternType",
    "Assignment.BrokerIds": "brokerIDs",
}

# Nested struct names: "<Message>.<JSON struct type>" -> Swift name (default: the field's name, singular).
STRUCT_NAMES = {
    "AddPartitionsToTxnRequest.AddPartitionsToTxnTopic": "Topic",
    "AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult": "TopicResult",
    "AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult": "PartitionResult",
    "AlterConfigsResponse.AlterConfigsResourceResponse": "ResourceResponse",
    "IncrementalAlterConfigsResponse.AlterConfigsResourceResponse": "ResourceResponse",
    "ApiVersionsResponse.ApiVersion": "APIVersionRange",
    "DeleteTopicsResponse.DeletableTopicResult": "Result",
    "FetchRequest.ForgottenTopic": "ForgottenTopic",
    "JoinGroupRequest.JoinGroupRequestProtocol": "GroupProtocol",
    "ProduceRequest.TopicProduceData": "Topic",
    "ProduceRequest.PartitionProduceData": "Partition",
    "ProduceResponse.TopicProduceResponse": "Topic",
    "ProduceResponse.PartitionProduceResponse": "Partition",
}

# Nested structs that another message defines: "<Message>.<JSON struct type>" -> the Swift type.
ALIASES = {
    "IncrementalAlterConfigsResponse.AlterConfigsResourceResponse": "AlterConfigsResponse.ResourceResponse",
}

# An initializer parameter has a default value when its field is missing from some version of its
# struct, is nullable or tagged, has a default in the JSON, or is an error code, error message or
# throttle time. These two tables name the exceptions: "<Message>.<property>" or
# "<Message>.<Nested struct>.<property>".
NO_DEFAULT = {
    "AlterConfigsRequest.Config.value",
    "CreateTopicsRequest.Config.value",
    "CreateTopicsResponse.Config.value",
    "DeleteTopicsResponse.Result.name",
    "DescribeConfigsResponse.Config.value",
    "DescribeConfigsResponse.Synonym.value",
    "IncrementalAlterConfigsRequest.Config.value",
    "InitProducerIdResponse.producerID",
    "JoinGroupResponse.protocolName",
    "MetadataRequest.Topic.name",
    "MetadataRequest.topics",
    "MetadataResponse.Topic.name",
    "OffsetFetchRequest.topics",
    "ProduceRequest.Partition.records",
    "ProduceResponse.RecordError.batchIndex",
}
EXTRA_DEFAULT = {
    "AddPartitionsToTxnResponse.PartitionResult.partitionErrorCode",
    "AlterConfigsRequest.validateOnly",
    "CreatePartitionsRequest.validateOnly",
    "CreateTopicsRequest.Topic.assignments",
    "CreateTopicsRequest.Topic.configs",
    "CreateTopicsResponse.Config.isSensitive",
    "CreateTopicsResponse.Config.readOnly",
    "DescribeConfigsResponse.Config.isSensitive",
    "DescribeConfigsResponse.Config.readOnly",
    "IncrementalAlterConfigsRequest.validateOnly",
    "JoinGroupResponse.members",
    "ListOffsetsRequest.replicaID",
    "OffsetCommitRequest.memberID",
    "SaslAuthenticateResponse.authBytes",
    "SyncGroupRequest.assignments",
}

# JSON fields Sluice does not carry: "<Message>.<JSON struct type>.<JSON field>". A tagged one is
# skipped when read and not written; an untagged one must lie outside the supported versions.
OMIT = {
    # Feature negotiation (KIP-584): Sluice advertises no features.
    "ApiVersionsResponse.ApiVersionsResponse.SupportedFeatures",
    "ApiVersionsResponse.ApiVersionsResponse.FinalizedFeaturesEpoch",
    "ApiVersionsResponse.ApiVersionsResponse.FinalizedFeatures",
    "ApiVersionsResponse.ApiVersionsResponse.ZkMigrationReady",
    # Replication-only partition data of v12+.
    "FetchResponse.PartitionData.DivergingEpoch",
    "FetchResponse.PartitionData.CurrentLeader",
    "FetchResponse.PartitionData.SnapshotId",
}

# Default values that differ from the JSON's: "<Message>[.<Nested struct>].<property>" -> Swift.
DEFAULT_VALUES = {
    "ListOffsetsRequest.replicaID": "-1",
}

# Arrays nullable from some version on whose empty value, in the versions before, means what null
# means after (Metadata v0: an empty list of topics asks for all of them).
EMPTY_MEANS_NULL = {"MetadataRequest.topics"}

# Parameter order, where it is not the JSON's: struct -> property names.
PARAM_ORDER = {
    "MetadataRequest.Topic": ["name", "topicID"],
}

# What Sluice's hand-written message types said of each message, after the generated first line:
# paragraphs, wrapped when written.
SUMMARIES = {
    "AddOffsetsToTxnRequest": [
        (
            "A transactional producer tells its transaction coordinator that the transaction will "
            "commit offsets for a consumer group, so that the coordinator writes the transaction's "
            "markers to that group's offsets partition too (KIP-98)."
        ),
    ],
    "AddOffsetsToTxnResponse": [
        "Whether the group was added to the transaction.",
    ],
    "AddPartitionsToTxnRequest": [
        (
            "A transactional producer tells its transaction coordinator which partitions it is about "
            "to write to, before the first write (KIP-98)."
        ),
        (
            "Only the client form (v0–3) is read and written: from v4 on the request batches several "
            "transactions for brokers that verify partitions (KIP-890), and Sluice does not support "
            "those versions."
        ),
    ],
    "AddPartitionsToTxnResponse": [
        "Whether each partition was added to the transaction.",
        (
            "The client form (v0–3) only; v4+ group the results by transaction and add a top-level "
            "error code."
        ),
    ],
    "AlterConfigsRequest": [
        "Replace the dynamic configs of topics or brokers.",
        (
            "Every dynamic config of a resource that the request does not name is reset to its "
            "default; IncrementalAlterConfigs (key 44) changes single configs instead."
        ),
    ],
    "AlterConfigsResponse": [
        "Whether each resource's configs were replaced.",
    ],
    "ApiVersionsRequest": [
        (
            "A client asks which versions of each API the broker supports. Clients send it first on "
            "every connection, at their highest version; a broker that does not support that version "
            "answers with a version 0 response carrying UNSUPPORTED_VERSION (35) and its table, "
            "without reading the body."
        ),
    ],
    "ApiVersionsResponse": [
        (
            "The broker's supported version range per API. Always sent with response header v0. The "
            "tagged feature fields of v3+ (KIP-584) are skipped when read and not written."
        ),
    ],
    "CreateAclsRequest": [
        "ACL bindings to add.",
    ],
    "CreateAclsResponse": [
        "One result per creation, in the request's order.",
    ],
    "DeleteAclsResponse": [
        "Per filter, an error or the ACLs it matched and deleted.",
    ],
    "DescribeAclsResponse": [
        (
            "The matching ACLs, grouped by resource pattern, or one error (e.g. "
            "CLUSTER_AUTHORIZATION_FAILED, 31) for the whole request."
        ),
    ],
    "CreatePartitionsRequest": [
        "Raise topics' partition counts.",
    ],
    "CreatePartitionsResponse": [
        "Whether each topic's partitions were added.",
    ],
    "CreateTopicsRequest": [
        "Topics to create, with partition counts or explicit assignments, and configs.",
    ],
    "CreateTopicsResponse": [
        (
            "Per topic, whether it was created, and from v5 on the partition count, replication "
            "factor and configs it got."
        ),
    ],
    "DeleteTopicsResponse": [
        "Whether each topic was deleted.",
    ],
    "DescribeConfigsRequest": [
        "The configs of topics or brokers.",
    ],
    "DescribeConfigsResponse": [
        "Each resource's configs with their values and sources.",
    ],
    "DescribeGroupsRequest": [
        "The state and members of some groups.",
    ],
    "DescribeGroupsResponse": [
        "Each group's state, protocol and members with their subscriptions and assignments.",
    ],
    "EndTxnRequest": [
        (
            "A transactional producer asks its transaction coordinator to commit or abort the open "
            "transaction (KIP-98)."
        ),
    ],
    "EndTxnResponse": [
        "Whether the transaction was committed or aborted.",
        "v5 (not supported) adds the producer id and epoch the producer continues with (KIP-890).",
    ],
    "FetchRequest": [
        (
            "A consumer, or a follower replica, asks for records from offsets on, in an incremental "
            "fetch session (KIP-227) or a full one."
        ),
    ],
    "HeartbeatRequest": [
        "A group member says it is alive between rebalances.",
    ],
    "HeartbeatResponse": [
        "0, or e.g. REBALANCE_IN_PROGRESS (27) to make the member rejoin.",
    ],
    "IncrementalAlterConfigsRequest": [
        (
            "Set, delete, append to or subtract from single configs of topics or brokers, leaving the"
            " others as they are (KIP-339)."
        ),
    ],
    "IncrementalAlterConfigsResponse": [
        "Whether each resource's configs were changed.",
    ],
    "InitProducerIdRequest": [
        "An idempotent or transactional producer asks for its producer id and epoch (KIP-98).",
    ],
    "InitProducerIdResponse": [
        "The producer id and epoch to stamp on record batches.",
    ],
    "JoinGroupRequest": [
        (
            "A consumer joins a group, or rejoins it for a rebalance, offering the assignment "
            "protocols (e.g. \"range\", \"cooperative-sticky\") it supports."
        ),
    ],
    "JoinGroupResponse": [
        (
            "The new generation, the chosen protocol and the leader; the leader also gets every "
            "member's subscription, to compute the assignment it sends in SyncGroup."
        ),
    ],
    "LeaveGroupResponse": [
        "The outcome, and from v3 on the outcome per member.",
    ],
    "ListGroupsRequest": [
        "The groups the broker coordinates, optionally filtered.",
    ],
    "ListGroupsResponse": [
        "The groups, with their protocol types.",
    ],
    "ListOffsetsRequest": [
        (
            "The offset of the first record at or after a timestamp, or the earliest (-2) or latest "
            "(-1) offset, per partition."
        ),
    ],
    "ListOffsetsResponse": [
        "The offset found for each partition.",
    ],
    "MetadataRequest": [
        "Which brokers exist and who leads each partition of some topics.",
    ],
    "MetadataResponse": [
        (
            "The brokers, the controller, and each requested topic's partitions with their leaders "
            "and replicas."
        ),
    ],
    "OffsetCommitRequest": [
        "A group member commits the offsets it has consumed up to.",
    ],
    "OffsetCommitResponse": [
        "Whether each partition's offset was committed.",
    ],
    "OffsetFetchRequest": [
        (
            "The committed offsets of one group, for some or all partitions. (v8+ batch several "
            "groups; Sluice stops at v7.)"
        ),
    ],
    "OffsetFetchResponse": [
        "The group's committed offsets.",
    ],
    "ProduceRequest": [
        "Record batches to append, per topic and partition.",
        (
            "The records stay a slice of the request's buffer; the record-batch layer parses and "
            "checks them."
        ),
    ],
    "ProduceResponse": [
        "Per partition, where the records landed or why they did not.",
    ],
    "SaslAuthenticateRequest": [
        (
            "One SASL token from the client, as the mechanism chosen by SaslHandshake v1 defines it "
            "(KIP-152). v1 is v0 again; v2 is flexible."
        ),
    ],
    "SaslAuthenticateResponse": [
        (
            "The broker's token, or SASL_AUTHENTICATION_FAILED (58) with a message (the broker then "
            "closes the connection)."
        ),
    ],
    "SaslHandshakeRequest": [
        (
            "The SASL mechanism the client wants to authenticate with (KIP-43). After v0 the client "
            "sends the mechanism's tokens as bare size-prefixed frames; after v1, inside "
            "SaslAuthenticate requests (KIP-152). Never flexible."
        ),
    ],
    "SaslHandshakeResponse": [
        (
            "0, or UNSUPPORTED_SASL_MECHANISM (33), with the mechanisms the broker enables either "
            "way. The same in v0 and v1."
        ),
    ],
    "SyncGroupRequest": [
        (
            "After a join, every member asks for its assignment; the leader sends the assignments of "
            "all members."
        ),
    ],
    "SyncGroupResponse": [
        "The member's assignment.",
    ],
    "TxnOffsetCommitRequest": [
        (
            "A transactional producer commits a consumer group's offsets as part of its transaction, "
            "to the group coordinator; they become visible when the transaction commits (KIP-98, and "
            "KIP-447 for the group fields of v3)."
        ),
    ],
    "TxnOffsetCommitResponse": [
        "Whether each partition's offset was added to the transaction.",
    ],
}

INT_TYPES = {"int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64", "uint16": "UInt16"}


# MARK: Reading definitions

def strip_comments(text):
    """Removes `//` comments that stand outside strings."""
    out = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_string = False
            i += 1
        elif c == '"':
            in_string = True
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def load_definition(name):
    with open(os.path.join(DEFINITIONS, name + ".json"), encoding="utf-8") as f:
        return json.loads(strip_comments(f.read()))


def parse_versions(spec):
    """A version spec ("0+", "3-5", "7", "none") as (low, high) or None."""
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return (int(spec[:-1]), INT_MAX16)
    if "-" in spec:
        low, high = spec.split("-")
        return (int(low), int(high))
    return (int(spec), int(spec))


def intersect(a, b):
    if a is None or b is None:
        return None
    low, high = max(a[0], b[0]), min(a[1], b[1])
    return (low, high) if low <= high else None


def load_api_table():
    """name -> (key case, low, high, first flexible) from KafkaAPI.swift."""
    with open(os.path.join(MESSAGES, "KafkaAPI.swift"), encoding="utf-8") as f:
        text = f.read()
    table = {}
    for case, name, low, high, flex in re.findall(
        r'case \.(\w+): \("(\w+)", (\d+) \.\.\. (\d+), (\d+|\.max)\)', text
    ):
        table[name] = (case, int(low), int(high), INT_MAX16 if flex == ".max" else int(flex))
    return table


# MARK: Model

class Field:
    def __init__(self, json_field, struct, message):
        self.json = json_field
        self.name = json_field["name"]
        self.type = json_field["type"]
        self.about = json_field.get("about", "")
        supported = message.supported
        self.versions = intersect(parse_versions(json_field.get("versions")), supported)
        tagged = parse_versions(json_field.get("taggedVersions"))
        self.tag = json_field.get("tag")
        self.tagged = intersect(tagged, supported) if self.tag is not None else None
        nullable = intersect(parse_versions(json_field.get("nullableVersions")), self.versions)
        self.nullable = nullable
        self.swift = RENAMES.get(struct + "." + self.name, swift_name(self.name))
        self.struct = None
        element = self.type[2:] if self.type.startswith("[]") else self.type
        if element not in PRIMITIVES:
            if "fields" not in json_field:
                common = message.common[element]
                json_field = dict(json_field, fields=common["fields"])
            self.struct = Struct(element, json_field, message, self)
        self.default_json = json_field.get("default")
        owner = message.name if struct == message.name else message.name + "." + struct
        self.key = owner + "." + self.swift
        if self.tagged is not None and self.tagged != self.versions:
            raise ValueError("%s: tagged in only some of its versions" % self.key)

    @property
    def is_array(self):
        return self.type.startswith("[]")

    @property
    def element(self):
        return self.type[2:]

    @property
    def optional(self):
        return self.nullable is not None

    def swift_type(self, prefix=""):
        """The Swift type; `prefix` qualifies a nested struct's name (in extensions)."""
        if self.struct is not None:
            name = prefix + self.struct.swift
            base = "[" + name + "]" if self.is_array else name
        elif self.is_array:
            base = "[" + scalar_type(self.element) + "]"
        else:
            base = scalar_type(self.type)
        return base + "?" if self.optional else base

    def default_value(self):
        if self.key in DEFAULT_VALUES:
            return DEFAULT_VALUES[self.key]
        d = self.default_json
        if d == "null" or (d is None and self.optional):
            return "nil"
        if self.is_array:
            return "[]"
        t = self.type
        if t in INT_TYPES:
            if d is None or d == "":
                return "0"
            value = int(d, 0) if isinstance(d, str) else int(d)
            if t == "int32" and value in (-2**31, 2**31 - 1):
                return "Int32.min" if value < 0 else "Int32.max"
            return "{:_}".format(value) if abs(value) >= 10000 else str(value)
        if t == "bool":
            return "true" if d in ("true", True) else "false"
        if t == "float64":
            return "0" if d is None else str(d)
        if t == "string":
            return json.dumps(d if d is not None else "")
        if t == "uuid":
            return ".zero"
        if t in ("bytes", "records"):
            return "ByteBuffer()"
        raise ValueError("no default for " + t)


PRIMITIVES = set(INT_TYPES) | {"bool", "float64", "string", "bytes", "records", "uuid"}


def scalar_type(t):
    if t in INT_TYPES:
        return INT_TYPES[t]
    return {"bool": "Bool", "float64": "Double", "string": "String", "bytes": "ByteBuffer",
            "records": "ByteBuffer", "uuid": "KafkaUUID"}[t]


def swift_name(name):
    """Kafka's PascalCase field name in Swift's camelCase, with Id spelled ID."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+", name)
    words = ["ID" if w == "Id" else w for w in words]
    first = words[0]
    first = first.lower() if first.isupper() or first == "ID" else first[0].lower() + first[1:]
    return first + "".join(words[1:])


def singular(name):
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("sses") or name.endswith("xes"):
        return name[:-2]
    if name.endswith("s"):
        return name[:-1]
    return name


class Struct:
    def __init__(self, json_type, json_field, message, parent_field):
        self.json_type = json_type
        if parent_field is None:
            self.swift = message.name
        else:
            self.swift = STRUCT_NAMES.get(message.name + "." + json_type, singular(json_field["name"]))
        self.about = json_field.get("about", "")
        self.versions = message.supported if parent_field is None else parent_field.versions
        self.alias = ALIASES.get(message.name + "." + json_type)
        fields = []
        for f in json_field.get("fields", []):
            if "%s.%s.%s" % (message.name, json_type, f["name"]) in OMIT:
                carried = intersect(parse_versions(f.get("versions")), message.supported)
                if carried is not None and "tag" not in f:
                    raise ValueError("%s.%s: an untagged field cannot be omitted" % (message.name, f["name"]))
                continue
            fields.append(Field(f, self.swift, message))
        self.fields = fields
        self.fields = [f for f in self.fields if f.versions is not None]
        for f in self.fields:
            f.parent = self


class Message:
    def __init__(self, name, table):
        self.definition = load_definition(name)
        self.name = name
        self.kind = self.definition["type"]
        api = name[: -len("Request")] if self.kind == "request" else name[: -len("Response")]
        self.api_case, low, high, flex = table[api]
        self.api_name = api
        self.key = self.definition["apiKey"]
        self.supported = (low, high)
        self.common = {c["name"]: c for c in self.definition.get("commonStructs", [])}
        self.flexible = intersect(parse_versions(self.definition.get("flexibleVersions")), self.supported)
        self.root = Struct(name, {"name": name, "fields": self.definition["fields"]}, self, None)


# MARK: Writing Swift

def condition(versions, supported):
    """The Swift test for `version` within `versions`, or None when every supported version is in."""
    low, high = versions
    if low == high and (low > supported[0] or high < supported[1]):
        return "version == %d" % low
    parts = []
    if low > supported[0]:
        parts.append("version >= %d" % low)
    if high < supported[1]:
        parts.append("version <= %d" % high)
    return " && ".join(parts) if parts else None


def doc_lines(text, indent):
    text = " ".join(text.split())
    if not text:
        return []
    lines, line = [], ""
    width = 100 - len(indent) - 4
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = word if not line else line + " " + word
    lines.append(line)
    return [indent + "/// " + l for l in lines]


class Writer:
    def __init__(self, message):
        self.m = message
        self.out = []
        self.prefix = ""  # qualifies nested struct names in the extensions

    def emit(self, line=""):
        self.out.append(line)

    def flex_all(self):
        """True when every supported version is flexible, False when none is, else None."""
        f = self.m.flexible
        if f is None:
            return False
        if f[0] <= self.m.supported[0]:
            return True
        return None

    def compact_expr(self):
        flex = self.flex_all()
        return {True: "true", False: "false"}.get(flex, "compact")

    # Reading: expressions are lists of lines, without `try`.

    def read_scalar(self, t, nullable, compact, buf):
        if t in INT_TYPES:
            return "%s.readKafkaInteger()" % buf
        if t == "bool":
            return "%s.readKafkaBool()" % buf
        if t == "float64":
            return "%s.readKafkaFloat64()" % buf
        if t == "uuid":
            return "%s.readKafkaUUID()" % buf
        if t == "string":
            return "%s.readKafka%sString(compact: %s)" % (buf, "Nullable" if nullable else "", compact)
        if t in ("bytes", "records"):
            return "%s.readKafka%sBytes(compact: %s)" % (buf, "Nullable" if nullable else "", compact)
        raise ValueError(t)

    def read_expr(self, f, nullable, compact, buf):
        if f.struct is not None and not f.is_array:
            return ["%s(from: &%s, version: version, compact: %s)" % (self.prefix + f.struct.swift, buf, compact)]
        if f.is_array:
            e = f.element
            if e == "int32" and not nullable:
                return ["%s.readKafkaInt32Array(compact: %s)" % (buf, compact)]
            if e == "string":
                return ["%s.readKafka%sStringArray(compact: %s)" % (buf, "Nullable" if nullable else "", compact)]
            fn = "readKafkaNullableArray" if nullable else "readKafkaArray"
            if f.struct is not None:
                body = "%s(from: &buffer, version: version, compact: %s)" % (self.prefix + f.struct.swift, compact)
            else:
                body = self.read_scalar(e, False, compact, "buffer")
            return ["%s.%s(compact: %s) { buffer throws(KafkaDecodingError) in" % (buf, fn, compact),
                    "    try " + body,
                    "}"]
        return [self.read_scalar(f.type, nullable, compact, buf)]

    def assign_read(self, f, target, compact, buf="buffer"):
        """Statements that read `f` into `target` at a version that carries it."""
        def assign(nullable):
            lines = self.read_expr(f, nullable, compact, buf)
            return ["%s = try %s" % (target, lines[0])] + lines[1:]
        nv = f.nullable
        if nv is None:
            return assign(False)
        if nv == f.versions:
            return assign(True)
        # Nullable from some version on: earlier versions read a non-null value.
        cond = condition(nv, f.versions)
        before = assign(False)
        if self.struct_key(f.parent) + "." + f.swift in EMPTY_MEANS_NULL:
            before = ["let read: %s%s" % (f.swift_type(self.prefix)[:-1], before[0][len(target):])] + before[1:]
            before.append("%s = read.isEmpty ? nil : read" % target)
        return (["if %s {" % cond] + ["    " + l for l in assign(True)] + ["} else {"]
                + ["    " + l for l in before] + ["}"])

    # Writing

    def write_scalar(self, t, value, nullable, compact):
        if t in INT_TYPES:
            return "buffer.writeInteger(%s)" % value
        if t == "bool":
            return "buffer.writeKafkaBool(%s)" % value
        if t == "float64":
            return "buffer.writeKafkaFloat64(%s)" % value
        if t == "uuid":
            return "buffer.writeKafkaUUID(%s)" % value
        if t == "string":
            return "buffer.writeKafka%sString(%s, compact: %s)" % ("Nullable" if nullable else "", value, compact)
        if t in ("bytes", "records"):
            return "buffer.writeKafka%sBytes(%s, compact: %s)" % ("Nullable" if nullable else "", value, compact)
        raise ValueError(t)

    def write_expr(self, f, value, nullable, compact):
        if f.struct is not None and not f.is_array:
            return ["%s.write(to: &buffer, version: version, compact: %s)" % (value, compact)]
        if f.is_array:
            e = f.element
            if e == "int32" and not nullable:
                return ["buffer.writeKafkaInt32Array(%s, compact: %s)" % (value, compact)]
            if e == "string":
                return ["buffer.writeKafka%sStringArray(%s, compact: %s)" % ("Nullable" if nullable else "", value, compact)]
            fn = "writeKafkaNullableArray" if nullable else "writeKafkaArray"
            if f.struct is not None:
                body = "element.write(to: &buffer, version: version, compact: %s)" % compact
            else:
                body = self.write_scalar(e, "element", False, compact)
            return ["buffer.%s(%s, compact: %s) { element, buffer in" % (fn, value, compact),
                    "    " + body,
                    "}"]
        return [self.write_scalar(f.type, value, nullable, compact)]

    def empty_value(self, f):
        if f.is_array:
            return "[]"
        if f.type == "string":
            return '""'
        return "ByteBuffer()"

    def field_write(self, f, value, compact):
        """Statements writing `f` at a version that carries it."""
        nv = f.nullable
        if nv is None:
            return self.write_expr(f, value, False, compact)
        if nv == f.versions:
            return self.write_expr(f, value, True, compact)
        # Before the field is nullable a nil is written as empty.
        cond = condition(nv, f.versions)
        empty = "%s ?? %s" % (value, self.empty_value(f))
        return (["if %s {" % cond] + ["    " + l for l in self.write_expr(f, value, True, compact)]
                + ["} else {"] + ["    " + l for l in self.write_expr(f, empty, False, compact)] + ["}"])

    # Structs

    def struct_key(self, s):
        return s.swift if s is self.m.root else self.m.name + "." + s.swift

    def params(self, s):
        fields = list(s.fields)
        order = PARAM_ORDER.get(self.struct_key(s))
        if order:
            by_name = {f.swift: f for f in fields}
            fields = [by_name[n] for n in order]
        return fields

    def has_default(self, s, f):
        key = self.struct_key(s)
        if key + "." + f.swift in NO_DEFAULT:
            return False
        if key + "." + f.swift in EXTRA_DEFAULT:
            return True
        return (f.versions != s.versions or f.default_json is not None or f.optional
                or f.tagged is not None or f.name in ("ErrorCode", "ThrottleTimeMs", "ErrorMessage"))

    def all_structs(self, s, acc):
        for f in s.fields:
            if f.struct is not None:
                self.all_structs(f.struct, acc)
                if all(x.swift != f.struct.swift for x in acc):
                    acc.append(f.struct)
        return acc

    def field_doc(self, s, f):
        notes = []
        if f.versions != s.versions:
            low, high = f.versions
            notes.append("v%d+" % low if high == s.versions[1] else
                         "v%d" % low if low == high else "v%d–%d" % (low, high))
        if f.tagged is not None:
            notes.append("tagged field %d" % f.tag)
        about = f.about.strip()
        if not notes:
            return about
        note = notes[0] + ("" if len(notes) == 1 else " (" + notes[1] + ")")
        return note + ": " + about

    def declare_struct(self, s, indent):
        for f in s.fields:
            self.out.extend(doc_lines(self.field_doc(s, f), indent))
            self.emit("%spackage var %s: %s" % (indent, f.swift, f.swift_type()))
        self.emit()
        params = []
        for f in self.params(s):
            p = "%s: %s" % (f.swift, f.swift_type())
            if self.has_default(s, f):
                p += " = " + f.default_value()
            params.append(p)
        one = "%spackage init(%s) {" % (indent, ", ".join(params))
        if len(one) <= 120:
            self.emit(one)
        else:
            self.emit(indent + "package init(")
            for i, p in enumerate(params):
                self.emit(indent + "    " + p + ("," if i < len(params) - 1 else ""))
            self.emit(indent + ") {")
        for f in s.fields:
            self.emit("%s    self.%s = %s" % (indent, f.swift, f.swift))
        self.emit(indent + "}")

    def groups(self, s):
        """The fields outside tagged sections, in runs that share a version condition."""
        runs = []
        for f in s.fields:
            if f.tagged is not None and f.versions == f.tagged:
                continue
            cond = condition(f.versions, s.versions)
            if runs and runs[-1][0] == cond and cond is not None:
                runs[-1][1].append(f)
            else:
                runs.append((cond, [f]))
        return runs

    def emit_lines(self, indent, lines):
        for l in lines:
            self.emit(indent + l)

    def decode_body(self, s, indent, root):
        self.prefix = "" if root else self.m.name + "."
        compact = self.compact_expr() if root else "compact"
        if root:
            self.emit(indent + "try Self.api.checkSupported(version)")
            if compact == "compact":
                self.emit(indent + "let compact = Self.api.isFlexible(version)")
        for f in s.fields:
            if f.tagged is not None and f.versions == f.tagged:
                self.emit("%svar %s: %s = %s" % (indent, f.swift, f.swift_type(self.prefix), f.default_value()))
        for cond, fields in self.groups(s):
            if cond is None:
                f = fields[0]
                lines = self.assign_read(f, f.swift, compact)
                if lines[0].startswith("if "):
                    self.emit("%slet %s: %s" % (indent, f.swift, f.swift_type(self.prefix)))
                    self.emit_lines(indent, lines)
                else:
                    self.emit_lines(indent, ["let %s: %s%s" % (f.swift, f.swift_type(self.prefix), lines[0][len(f.swift):])] + lines[1:])
                continue
            for f in fields:
                self.emit("%svar %s: %s = %s" % (indent, f.swift, f.swift_type(self.prefix), f.default_value()))
            lines = []
            for f in fields:
                lines += self.assign_read(f, f.swift, compact)
            one = "%sif %s { %s }" % (indent, cond, lines[0])
            if len(lines) == 1 and len(one) <= 120:
                self.emit(one)
            else:
                self.emit("%sif %s {" % (indent, cond))
                self.emit_lines(indent + "    ", lines)
                self.emit(indent + "}")
        self.tagged_read(s, indent, compact)
        args = ", ".join("%s: %s" % (f.swift, f.swift) for f in self.params(s))
        call = "%sself.init(%s)" % (indent, args)
        if len(call) <= 120:
            self.emit(call)
        else:
            self.emit(indent + "self.init(")
            params = self.params(s)
            for i, f in enumerate(params):
                self.emit("%s    %s: %s%s" % (indent, f.swift, f.swift, "," if i < len(params) - 1 else ""))
            self.emit(indent + ")")

    def tagged_read(self, s, indent, compact):
        if compact == "false":
            return
        tagged = sorted((f for f in s.fields if f.tagged is not None), key=lambda f: f.tag)
        if not tagged:
            line = "try buffer.skipKafkaTaggedFields()"
            self.emit(indent + (line if compact == "true" else "if compact { %s }" % line))
            return
        inner = indent if compact == "true" else indent + "    "
        if compact != "true":
            self.emit("%sif compact {" % indent)
        # Known tags are read; the others are skipped.
        self.emit(inner + "try buffer.readKafkaTaggedFields { tag, field throws(KafkaDecodingError) in")
        self.emit(inner + "    switch tag {")
        for f in tagged:
            cond = condition(f.tagged, s.versions)
            self.emit(inner + "    case %d%s:" % (f.tag, "" if cond is None else " where " + cond))
            self.emit_lines(inner + "        ", self.assign_read(f, f.swift, "true", "field"))
        self.emit(inner + "    default:")
        self.emit(inner + "        break")
        self.emit(inner + "    }")
        self.emit(inner + "}")
        if compact != "true":
            self.emit(indent + "}")

    def encode_body(self, s, indent, root):
        compact = self.compact_expr() if root else "compact"
        if root:
            self.emit(indent + "assert(Self.api.supports(version))")
            if compact == "compact":
                self.emit(indent + "let compact = Self.api.isFlexible(version)")
        for cond, fields in self.groups(s):
            lines = []
            for f in fields:
                lines += self.field_write(f, f.swift, compact)
            if cond is None:
                self.emit_lines(indent, lines)
            elif len(lines) == 1:
                self.emit("%sif %s { %s }" % (indent, cond, lines[0]))
            else:
                self.emit("%sif %s {" % (indent, cond))
                self.emit_lines(indent + "    ", lines)
                self.emit(indent + "}")
        self.tagged_write(s, indent, compact)

    def tagged_write(self, s, indent, compact):
        if compact == "false":
            return
        tagged = sorted((f for f in s.fields if f.tagged is not None), key=lambda f: f.tag)
        if not tagged:
            line = "buffer.writeKafkaEmptyTaggedFields()"
            self.emit(indent + (line if compact == "true" else "if compact { %s }" % line))
            return
        inner = indent if compact == "true" else indent + "    "
        if compact != "true":
            self.emit("%sif compact {" % indent)
        # A tagged field is written only when it differs from its default.
        self.emit(inner + "var tagged: [(tag: UInt32, write: (inout ByteBuffer) -> Void)] = []")
        for f in tagged:
            test = "%s != %s" % (f.swift, f.default_value())
            cond = condition(f.tagged, s.versions)
            if cond is not None:
                test = cond + ", " + test
            self.emit("%sif %s {" % (inner, test))
            self.emit("%s    let value = %s" % (inner, f.swift))
            self.emit("%s    tagged.append((%d, { (buffer: inout ByteBuffer) in" % (inner, f.tag))
            self.emit_lines(inner + "        ", self.field_write(f, "value", "true"))
            self.emit(inner + "    }))")
            self.emit(inner + "}")
        self.emit(inner + "buffer.writeKafkaTaggedFields(tagged)")
        if compact != "true":
            self.emit(indent + "}")

    def generate(self):
        m = self.m
        self.emit("// Generated by dev/generate-kafka-messages.py from dev/kafka-messages/%s.json. Do not edit." % m.name)
        self.emit()
        self.emit("import NIOCore")
        self.emit()
        kind = "Request" if m.kind == "request" else "Response"
        low, high = m.supported
        self.emit("/// %s %s (key %d), versions %d–%d." % (m.api_name, kind.lower(), m.key, low, high))
        for paragraph in SUMMARIES.get(m.name, []):
            self.emit("///")
            self.out.extend(doc_lines(paragraph, ""))
        proto = "KafkaRequest" if m.kind == "request" else "KafkaResponse"
        self.emit("package struct %s: %s {" % (m.name, proto))
        if m.kind == "request":
            self.emit("    package typealias Response = %sResponse" % m.api_name)
        self.emit("    package static let api = KafkaAPI.%s" % m.api_case)
        self.emit()
        structs = self.all_structs(m.root, [])
        for s in [s for s in structs if s.alias]:
            self.out.extend(doc_lines(s.about, "    "))
            self.emit("    package typealias %s = %s" % (s.swift, s.alias))
            self.emit()
        structs = [s for s in structs if not s.alias]
        for s in structs:
            self.out.extend(doc_lines(s.about, "    "))
            self.emit("    package struct %s: Sendable, Equatable {" % s.swift)
            self.declare_struct(s, "        ")
            self.emit("    }")
            self.emit()
        self.declare_struct(m.root, "    ")
        self.emit()
        self.emit("    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {")
        self.decode_body(m.root, "        ", True)
        self.emit("    }")
        self.emit()
        self.emit("    package func write(to buffer: inout ByteBuffer, version: Int16) {")
        self.encode_body(m.root, "        ", True)
        self.emit("    }")
        self.emit("}")
        for s in structs:
            self.emit()
            self.emit("extension %s.%s {" % (m.name, s.swift))
            self.emit("    init(from buffer: inout ByteBuffer, version: Int16, compact: Bool) throws(KafkaDecodingError) {")
            self.decode_body(s, "        ", False)
            self.emit("    }")
            self.emit()
            self.emit("    func write(to buffer: inout ByteBuffer, version: Int16, compact: Bool) {")
            self.encode_body(s, "        ", False)
            self.emit("    }")
            self.emit("}")
        return "\n".join(self.out) + "\n"


def main(argv):
    check = "--check" in argv[1:]
    only = [a for a in argv[1:] if not a.startswith("--")]
    table = load_api_table()
    differing = []
    for name in (only or GENERATED):
        text = Writer(Message(name, table)).generate()
        path = os.path.join(MESSAGES, name + ".swift")
        current = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                current = f.read()
        if current == text:
            continue
        if check:
            differing.append(path)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if differing:
        for path in differing:
            print("out of date: " + os.path.relpath(path, ROOT))
        print("run dev/generate-kafka-messages.py to regenerate")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
