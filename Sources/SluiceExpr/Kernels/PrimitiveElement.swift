import SluiceCore

/// A fixed-width element type stored in one ``ColumnStorage`` case, so kernels can be written
/// once, generically, and specialized per type.
package protocol PrimitiveElement: Sendable {
    /// The elements of `storage`, which must be this type's case.
    static func elements(of storage: ColumnStorage) -> [Self]
    /// Storage holding `elements`.
    static func storage(_ elements: [Self]) -> ColumnStorage
    /// The value kept in the slot of a null row.
    static var nullSlot: Self { get }
}

extension Bool: PrimitiveElement {
    package static var nullSlot: Bool { false }
    package static func elements(of storage: ColumnStorage) -> [Bool] {
        if case .bool(let values) = storage { return values }
        preconditionFailure("column is not boolean")
    }
    package static func storage(_ elements: [Bool]) -> ColumnStorage { .bool(elements) }
}

extension Int16: PrimitiveElement {
    package static var nullSlot: Int16 { 0 }
    package static func elements(of storage: ColumnStorage) -> [Int16] {
        if case .int16(let values) = storage { return values }
        preconditionFailure("column is not int16")
    }
    package static func storage(_ elements: [Int16]) -> ColumnStorage { .int16(elements) }
}

extension Int32: PrimitiveElement {
    package static var nullSlot: Int32 { 0 }
    package static func elements(of storage: ColumnStorage) -> [Int32] {
        if case .int32(let values) = storage { return values }
        preconditionFailure("column is not int32")
    }
    package static func storage(_ elements: [Int32]) -> ColumnStorage { .int32(elements) }
}

extension Int64: PrimitiveElement {
    package static var nullSlot: Int64 { 0 }
    package static func elements(of storage: ColumnStorage) -> [Int64] {
        if case .int64(let values) = storage { return values }
        preconditionFailure("column is not int64")
    }
    package static func storage(_ elements: [Int64]) -> ColumnStorage { .int64(elements) }
}

extension Float: PrimitiveElement {
    package static var nullSlot: Float { 0 }
    package static func elements(of storage: ColumnStorage) -> [Float] {
        if case .float32(let values) = storage { return values }
        preconditionFailure("column is not float32")
    }
    package static func storage(_ elements: [Float]) -> ColumnStorage { .float32(elements) }
}

extension Double: PrimitiveElement {
    package static var nullSlot: Double { 0 }
    package static func elements(of storage: ColumnStorage) -> [Double] {
        if case .float64(let values) = storage { return values }
        preconditionFailure("column is not float64")
    }
    package static func storage(_ elements: [Double]) -> ColumnStorage { .float64(elements) }
}

extension Decimal: PrimitiveElement {
    package static var nullSlot: Decimal { .zero }
    package static func elements(of storage: ColumnStorage) -> [Decimal] {
        if case .decimal(let values) = storage { return values }
        preconditionFailure("column is not decimal")
    }
    package static func storage(_ elements: [Decimal]) -> ColumnStorage { .decimal(elements) }
}

extension Interval: PrimitiveElement {
    package static var nullSlot: Interval { Interval() }
    package static func elements(of storage: ColumnStorage) -> [Interval] {
        if case .interval(let values) = storage { return values }
        preconditionFailure("column is not interval")
    }
    package static func storage(_ elements: [Interval]) -> ColumnStorage { .interval(elements) }
}
