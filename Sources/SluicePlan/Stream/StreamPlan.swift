import SluiceCore
import SluiceExpr

/// A stream plan: how a materialized view keeps its rows up to date, as a plain value. The
/// planner builds it from the view's batch plan, the dataflow runtime turns it into operators,
/// EXPLAIN prints it.
///
/// Every node consumes and produces change streams (insert, delete and update ops). The root's
/// output is what the view materializes.
///
/// **A new stream operator is declared in one place**: one ``StreamNode`` type beside the
/// others in this folder says what it reads and produces, how EXPLAIN shows it and how it is
/// stored (its `+PlanCodable` extension beside it, its tag in ``StreamPlan/nodeTypes``), and its
/// operator in `SluiceDataflow` conforms it to `StreamOperatorNode`, which builds the operator.
/// Nothing here switches over the kinds of node.
package struct StreamPlan: Sendable, Equatable, CustomStringConvertible {
    package let node: any StreamNode

    package init(_ node: any StreamNode) {
        self.node = node
    }

    /// The types of the columns this plan produces.
    package var outputTypes: [DataType] { node.outputTypes }
    /// The inputs of this node, left to right.
    package var inputs: [StreamPlan] { node.inputs }
    /// Whether the plan's change stream only ever inserts: sources, and what filters, projects,
    /// inner-joins or unions only such streams.
    package var isAppendOnly: Bool { node.isAppendOnly }
    /// Output columns whose values tell the plan's current rows apart (its stream key): an
    /// aggregate's group key, carried through projections that pass it on unchanged; nil when
    /// no such columns are known, and the rows are then told apart by all their values.
    package var streamKey: [Int]? { node.streamKey }
    /// Output columns that carry a watermark (event-time progress) from a source's
    /// `WATERMARK FOR`: a window's start over the source's time column, a group key that is one.
    package var watermarkColumns: [Int] { node.watermarkColumns }

    package static func == (left: StreamPlan, right: StreamPlan) -> Bool {
        left.node.isEqual(to: right.node)
    }

    /// The plan's scans, in first-seen order.
    package var scans: [TableScan] {
        var scans: [TableScan] = []
        func visit(_ plan: StreamPlan) {
            if let scan = plan.node as? ScanNode { scans.append(scan.table) }
            for input in plan.inputs { visit(input) }
        }
        visit(self)
        return scans
    }

    /// Ids of the relations the plan reads, each once, in first-seen order.
    package var scannedRelations: [Int] {
        var ids: [Int] = []
        for scan in scans where !ids.contains(scan.tableID) { ids.append(scan.tableID) }
        return ids
    }

    /// Of each relation the plan reads, the columns its scans read.
    package var scannedColumns: [Int: Set<Int>] {
        scans.reduce(into: [:]) { $0[$1.tableID, default: []].formUnion($1.columns) }
    }

    /// The plan as an indented tree, one operator a line.
    package var description: String {
        var lines: [String] = []
        render(into: &lines, depth: 0)
        return lines.joined(separator: "\n")
    }

    /// Raised when operators change the columns of the state they keep for the same plan
    /// (2: numeric sums keep counts of NaN and infinities), so that views made before are
    /// rebuilt rather than restored.
    package static let stateLayoutVersion = 2

    /// A hash of the plan's operators and expressions (its EXPLAIN text) and of
    /// ``stateLayoutVersion``, hex: equal for plans that keep the same state.
    package var fingerprint: String {
        var lines = ["state layout \(StreamPlan.stateLayoutVersion)"]
        render(into: &lines, depth: 0)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in lines.joined(separator: "\n").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }

    /// The lines EXPLAIN prints: the plan, its terminal (materialize or sink) first.
    package var explainLines: [String] {
        var lines: [String] = []
        render(into: &lines, depth: 0)
        return lines
    }

    /// The plan its terminal node takes from (``TerminalStreamNode``), or the plan itself.
    package var body: StreamPlan {
        (node as? any TerminalStreamNode)?.input ?? self
    }

    private func render(into lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth) + (depth > 0 ? "└─" : "")
        lines.append("\(indent)\(node.operatorName) { \(node.explainFields) }")
        for input in inputs { input.render(into: &lines, depth: depth + 1) }
    }
}

/// One kind of stream plan node: what it reads, what it produces, how EXPLAIN names it, and
/// how a stored plan holds it (``PlanCodable``; its tag is its place in ``StreamPlan/nodeTypes``).
package protocol StreamNode: Sendable, PlanCodable {
    /// The operator's name in EXPLAIN and in profiles (`StreamHashAgg`).
    var operatorName: String { get }
    /// What EXPLAIN prints between the braces after the name.
    var explainFields: String { get }
    var inputs: [StreamPlan] { get }
    var outputTypes: [DataType] { get }
    var isAppendOnly: Bool { get }
    /// See ``StreamPlan/streamKey``; nil by default.
    var streamKey: [Int]? { get }
    /// See ``StreamPlan/watermarkColumns``; none by default.
    var watermarkColumns: [Int] { get }
    func isEqual(to other: any StreamNode) -> Bool
}

extension StreamNode {
    package var streamKey: [Int]? { nil }
    package var watermarkColumns: [Int] { [] }
}

extension StreamNode where Self: Equatable {
    package func isEqual(to other: any StreamNode) -> Bool {
        (other as? Self) == self
    }
}

/// An incremental equi-join of two change streams (`.inner` or `.left`), bag semantics.
package typealias StreamHashJoinPlan = EquiJoin<StreamPlan>
