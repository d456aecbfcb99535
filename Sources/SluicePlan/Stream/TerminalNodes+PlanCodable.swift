import SluiceCore
import SluiceExpr

// How the terminal nodes of TerminalNodes.swift are stored (StreamPlan+Storage.swift).

extension MaterializeNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(string: view)
        writer.write(strings: columns)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let view = try reader.readString()
        self.init(input: input, view: view, columns: try reader.readStrings())
    }
}

extension SinkNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(string: sink)
        writer.write(string: connector)
        writer.write(string: type)
        writer.write(strings: primaryKey)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let sink = try reader.readString()
        let connector = try reader.readString()
        let type = try reader.readString()
        self.init(input: input, sink: sink, connector: connector, type: type, primaryKey: try reader.readStrings())
    }
}
