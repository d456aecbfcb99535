import SluiceCore

/// Building blocks for vectorized kernels: element-wise maps with null propagation.
///
/// Kernels run over whole buffers, including the zero-valued slots of null rows; an operation
/// that can fail (overflow, division by zero) is only checked on valid rows.
package enum Kernels {
    /// The validity of a row-wise operation on `columns`: a row is valid when it is valid in all.
    package static func combinedValidity(_ columns: [Column]) -> Bitmap? {
        var result: Bitmap?
        for column in columns {
            guard let validity = column.validity else { continue }
            result = result.map { $0 & validity } ?? validity
        }
        return result
    }

    /// Applies `operation` to each row of `column`; nulls stay null.
    package static func unary<A: PrimitiveElement, R: PrimitiveElement>(
        _ column: Column, resultType: DataType, _ operation: (A) throws(SluiceError) -> R
    ) throws(SluiceError) -> Column {
        let input = A.elements(of: column.storage)
        var output = [R]()
        output.reserveCapacity(input.count)
        if let validity = column.validity {
            for rowIndex in input.indices {
                if validity[rowIndex] {
                    output.append(try operation(input[rowIndex]))
                } else {
                    output.append(R.nullSlot)
                }
            }
        } else {
            for value in input { output.append(try operation(value)) }
        }
        return Column(type: resultType, storage: R.storage(output), validity: column.validity)
    }

    /// Applies `operation` to each pair of rows of `lhs` and `rhs`; a null in either gives null.
    package static func binary<A: PrimitiveElement, B: PrimitiveElement, R: PrimitiveElement>(
        _ lhs: Column, _ rhs: Column, resultType: DataType, _ operation: (A, B) throws(SluiceError) -> R
    ) throws(SluiceError) -> Column {
        let left = A.elements(of: lhs.storage)
        let right = B.elements(of: rhs.storage)
        let validity = combinedValidity([lhs, rhs])
        var output = [R]()
        output.reserveCapacity(left.count)
        if let validity {
            for rowIndex in left.indices {
                if validity[rowIndex] {
                    output.append(try operation(left[rowIndex], right[rowIndex]))
                } else {
                    output.append(R.nullSlot)
                }
            }
        } else {
            for rowIndex in left.indices { output.append(try operation(left[rowIndex], right[rowIndex])) }
        }
        return Column(type: resultType, storage: R.storage(output), validity: validity)
    }

    /// Applies `operation` to each row of string column `column`; nulls stay null.
    package static func unaryBytes<R: PrimitiveElement>(
        _ column: Column, resultType: DataType, _ operation: (UnsafeBufferPointer<UInt8>) throws(SluiceError) -> R
    ) throws(SluiceError) -> Column {
        guard case .bytes(let input) = column.storage else { preconditionFailure("column is not bytes") }
        var output = [R]()
        output.reserveCapacity(input.count)
        for rowIndex in 0 ..< input.count {
            if column.isNull(rowIndex) {
                output.append(R.nullSlot)
                continue
            }
            let value = try input.data.withUnsafeBufferPointer { (buffer) throws(SluiceError) -> R in
                try operation(UnsafeBufferPointer(rebasing: buffer[input.byteRange(at: rowIndex)]))
            }
            output.append(value)
        }
        return Column(type: resultType, storage: R.storage(output), validity: column.validity)
    }

    /// Builds a string column row by row: `operation` appends the bytes of row `rowIndex` to
    /// `out` and returns false for a null result.
    package static func buildBytes(
        rowCount: Int, type: DataType = .varchar, _ operation: (_ rowIndex: Int, _ out: inout [UInt8]) throws(SluiceError) -> Bool
    ) throws(SluiceError) -> Column {
        var bytes = VarBytes()
        bytes.offsets.reserveCapacity(rowCount + 1)
        var validity = Bitmap(count: rowCount, value: true)
        var anyNull = false
        for rowIndex in 0 ..< rowCount {
            if !(try operation(rowIndex, &bytes.data)) {
                validity[rowIndex] = false
                anyNull = true
            }
            bytes.offsets.append(Int32(bytes.data.count))
        }
        return Column(type: type, storage: .bytes(bytes), validity: anyNull ? validity : nil)
    }

    /// Builds a column row by row through ``ColumnBuilder`` (for rare types and the edges).
    package static func buildValues(
        rowCount: Int, type: DataType, _ operation: (_ rowIndex: Int) throws(SluiceError) -> Value
    ) throws(SluiceError) -> Column {
        var builder = ColumnBuilder(type: type, capacity: rowCount)
        for rowIndex in 0 ..< rowCount { builder.append(try operation(rowIndex)) }
        return builder.finish()
    }
}

