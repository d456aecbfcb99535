import SluiceCore
import SluiceExpr

/// A stream plan stored in the catalog, so that a restart runs the plan the view's state was
/// made by without binding its SQL again (as RisingWave keeps its fragment graph).
///
/// The bytes are `SP`, the format version (a varint), then the root node: each node its tag
/// (its place in ``StreamPlan/nodeTypes``) and its fields (``PlanCodable``), inputs nested.
/// A plan holding a function without a ``FunctionOrigin`` cannot be stored.
extension StreamPlan: PlanCodable {
    /// Raised whenever the bytes of any stored type change meaning; a stored plan of another
    /// version is not read (its view is bound from its SQL again).
    package static let storageFormatVersion: UInt64 = 1

    /// The node types a stored plan may hold, by tag: a node is stored as its index here.
    /// Append new node types at the end; never reorder or remove (that is a new format version).
    package static let nodeTypes: [any StreamNode.Type] = [
        ScanNode.self, ValuesNode.self, ProjectNode.self, HashAggregateNode.self, HashJoinNode.self, UnionNode.self,
        ProjectSetNode.self, TableFunctionNode.self, WindowCloseNode.self, TopNNode.self, OverWindowNode.self,
        TemporalFilterNode.self, MaterializeNode.self, SinkNode.self,
    ]

    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        let nodeType = ObjectIdentifier(type(of: node))
        guard let tag = Self.nodeTypes.firstIndex(where: { ObjectIdentifier($0) == nodeType }) else {
            throw SluiceError(.featureNotSupported, "stream node \(node.operatorName) cannot be stored: it is not in StreamPlan.nodeTypes")
        }
        writer.write(unsigned: UInt64(tag))
        try node.encode(into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let node = try reader.nested { (reader: inout PlanReader) throws(SluiceError) -> any StreamNode in
            let tag = try reader.readUnsigned()
            guard tag < UInt64(StreamPlan.nodeTypes.count) else { throw PlanReader.corrupted("unknown stream node tag \(tag)") }
            return try StreamPlan.nodeTypes[Int(tag)].init(from: &reader)
        }
        self.init(node)
    }

    /// The plan's stored bytes, headed by the format version. Throws `0A000` when the plan
    /// holds what cannot be stored.
    package func storedBytes() throws(SluiceError) -> [UInt8] {
        var writer = PlanWriter()
        writer.write(byte: UInt8(ascii: "S"))
        writer.write(byte: UInt8(ascii: "P"))
        writer.write(unsigned: Self.storageFormatVersion)
        try encode(into: &writer)
        return writer.bytes
    }

    /// The plan read back from ``storedBytes()``. Throws `0A000` for another format version
    /// and `XX001` for bytes that are not a whole stored plan, or a function that no longer
    /// rebuilds as it was.
    package init(storedBytes bytes: [UInt8]) throws(SluiceError) {
        var reader = PlanReader(bytes)
        guard try reader.readByte() == UInt8(ascii: "S"), try reader.readByte() == UInt8(ascii: "P") else {
            throw PlanReader.corrupted("it does not start with SP")
        }
        let version = try reader.readUnsigned()
        guard version == Self.storageFormatVersion else {
            throw SluiceError(.featureNotSupported, "stored plan format version \(version) is not \(Self.storageFormatVersion)")
        }
        self = try StreamPlan(from: &reader)
        guard reader.isAtEnd else { throw PlanReader.corrupted("bytes follow the plan") }
    }

    /// ``storedBytes()`` in base64, as the catalog keeps it; nil when the plan cannot be stored.
    package var storedText: String? {
        guard let bytes = try? storedBytes() else { return nil }
        return Base64.encode(bytes)
    }

    /// The plan read back from ``storedText``.
    package init(storedText text: String) throws(SluiceError) {
        guard let bytes = Base64.decode(text) else { throw PlanReader.corrupted("it is not base64") }
        try self.init(storedBytes: bytes)
    }
}

extension PlanReader {
    /// Throws unless every column index is below `width` (the columns of the input it indexes).
    package static func require(_ columns: some Sequence<Int>, below width: Int, in what: String) throws(SluiceError) {
        for column in columns where column < 0 || column >= width {
            throw corrupted("\(what) reads column \(column) of \(width)")
        }
    }

    /// Throws unless every column the expressions read is below `width`.
    package static func require(_ expressions: [ScalarExpr], readingBelow width: Int, in what: String) throws(SluiceError) {
        for expression in expressions { try require(expression.referencedColumns, below: width, in: what) }
    }
}
