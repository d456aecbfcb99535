import SluiceCore

/// The root of a stream plan that ends somewhere: a materialized view's table
/// (``MaterializeNode``) or a sink (``SinkNode``). Its one input is the plan whose changes it
/// takes, and it passes on what that input says of them.
package protocol TerminalStreamNode: StreamNode {
    var input: StreamPlan { get }
}

extension TerminalStreamNode {
    package var inputs: [StreamPlan] { [input] }
    package var outputTypes: [DataType] { input.outputTypes }
    package var isAppendOnly: Bool { input.isAppendOnly }
    package var streamKey: [Int]? { input.streamKey }
    package var watermarkColumns: [Int] { input.watermarkColumns }
}

/// A materialized view's rows, kept by their identity (a row id when the input only inserts,
/// its stream key, or every column), published at each barrier and passed on to the views
/// that read it.
package struct MaterializeNode: TerminalStreamNode, Equatable {
    package var input: StreamPlan
    package var view: String
    package var columns: [String]

    package init(input: StreamPlan, view: String, columns: [String]) {
        self.input = input
        self.view = view
        self.columns = columns
    }

    package var operatorName: String { "StreamMaterialize" }
    package var explainFields: String { "view: \(view), columns: [\(columns.joined(separator: ", "))]" }
}

/// A sink's writes: the changes handed to its connector, prepared at checkpoints and committed
/// once they are durable.
package struct SinkNode: TerminalStreamNode, Equatable {
    package var input: StreamPlan
    package var sink: String
    package var connector: String
    /// `append-only` or `upsert`.
    package var type: String
    /// An upsert sink's `primary_key` columns.
    package var primaryKey: [String]

    package init(input: StreamPlan, sink: String, connector: String, type: String, primaryKey: [String]) {
        self.input = input
        self.sink = sink
        self.connector = connector
        self.type = type
        self.primaryKey = primaryKey
    }

    package var operatorName: String { "StreamSink" }
    package var explainFields: String {
        var fields = "sink: \(sink), connector: \(connector), type: \(type)"
        if !primaryKey.isEmpty { fields += ", primary key: [\(primaryKey.joined(separator: ", "))]" }
        return fields
    }
}
