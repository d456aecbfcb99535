import SluiceCore

extension StreamChunk {
    /// A chunk from text, as RisingWave's `from_pretty`: a header of column types
    /// (I bigint, i integer, F double, T text, B boolean), then one row per line starting with
    /// its op (`+`, `-`, `U-`, `U+`); `.` is NULL.
    init(pretty text: String) {
        let lines = text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.filter { !$0.isEmpty }
        let types: [DataType] = lines[0].map { letter in
            switch letter {
            case "I": .int64
            case "i": .int32
            case "F": .float64
            case "B": .boolean
            default: .varchar
            }
        }
        var ops: [ChangeOp] = []
        var builders = types.map { ColumnBuilder(type: $0) }
        for line in lines.dropFirst() {
            switch line[0] {
            case "+": ops.append(.insert)
            case "-": ops.append(.delete)
            case "U-": ops.append(.updateDelete)
            default: ops.append(.updateInsert)
            }
            for (index, field) in line.dropFirst().enumerated() {
                let value: Value
                if field == "." {
                    value = .null
                } else {
                    switch types[index] {
                    case .int64: value = .int64(Int64(field)!)
                    case .int32: value = .int32(Int32(field)!)
                    case .float64: value = .float64(Double(field)!)
                    case .boolean: value = .bool(field == "t")
                    default: value = .string(field)
                    }
                }
                builders[index].append(value)
            }
        }
        self.init(ops: ops, data: Chunk(columns: builders.map { $0.finish() }))
    }

    /// The rows as (op, values), for comparisons.
    var changes: [[String]] {
        (0 ..< count).map { row in
            let op: String
            switch ops[row] {
            case .insert: op = "+"
            case .delete: op = "-"
            case .updateDelete: op = "U-"
            case .updateInsert: op = "U+"
            }
            return [op] + data.columns.map { $0.isNull(row) ? "." : $0.value(at: row).textForm }
        }
    }
}
