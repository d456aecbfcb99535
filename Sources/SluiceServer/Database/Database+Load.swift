import Foundation
import SluiceCore
import SluiceExpr
import SluicePlanner

extension Database {
    /// Appends the rows of a delimited text file to `table`: one row a line, fields split at
    /// `delimiter` (no quoting), an empty field NULL except in text columns, each column's
    /// text cast to its type a chunk at a time by the cast kernels. Returns the rows loaded.
    /// (What `COPY … FROM` will read; the TPC-H benchmark loads its tables with it.)
    package func loadDelimitedText(path: String, into table: RelationDefinition, delimiter: UInt8 = UInt8(ascii: "|")) throws(SluiceError) -> Int {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw SluiceError(.ioError, "could not open file \"\(path)\" for reading") }
        defer { try? handle.close() }
        let types = table.columns.map(\.type)
        let context = EvaluationContext()
        var fields = [VarBytes](repeating: VarBytes(), count: types.count)
        var nulls = [[Bool]](repeating: [], count: types.count)
        var rowsInChunk = 0
        var total = 0
        var pending: [UInt8] = []

        func flush() throws(SluiceError) {
            guard rowsInChunk > 0 else { return }
            var columns: [Column] = []
            for (index, type) in types.enumerated() {
                var text = Column(type: .varchar, storage: .bytes(fields[index]))
                if nulls[index].contains(true) {
                    text = Column(type: .varchar, values: (0 ..< rowsInChunk).map { nulls[index][$0] ? .null : text.value(at: $0) })
                }
                columns.append(type == .varchar ? text : try CastKernels.cast(text, to: type, context: context))
            }
            try tables.insert([Chunk(columns: columns, count: rowsInChunk)], into: table, synchronousCommit: false)
            total += rowsInChunk
            rowsInChunk = 0
            fields = [VarBytes](repeating: VarBytes(), count: types.count)
            nulls = [[Bool]](repeating: [], count: types.count)
        }

        while true {
            let block: Data
            do {
                block = try handle.read(upToCount: 8 << 20) ?? Data()
            } catch {
                throw SluiceError(.ioError, "could not read file \"\(path)\": \(error)")
            }
            if block.isEmpty { break }
            pending.append(contentsOf: block)
            var consumed = 0
            var failure: SluiceError?
            pending.withUnsafeBufferPointer { buffer in
                var index = 0
                while failure == nil, let newline = buffer[index...].firstIndex(of: UInt8(ascii: "\n")) {
                    var fieldStart = index
                    var column = 0
                    for position in index ... newline where position == newline || buffer[position] == delimiter {
                        if column < types.count {
                            let field = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[fieldStart ..< position]))
                            fields[column].append(bytes: field)
                            nulls[column].append(field.isEmpty && types[column] != .varchar)
                        }
                        column += 1
                        fieldStart = position + 1
                    }
                    if column < types.count {
                        failure = SluiceError(.badCopyFileFormat, "missing data for column \"\(table.columns[column].name)\"")
                        break
                    }
                    rowsInChunk += 1
                    if rowsInChunk == Chunk.preferredSize {
                        do throws(SluiceError) { try flush() } catch { failure = error }
                    }
                    index = newline + 1
                }
                consumed = index
            }
            if let failure { throw failure }
            pending.removeFirst(consumed)
        }
        try flush()
        return total
    }
}
