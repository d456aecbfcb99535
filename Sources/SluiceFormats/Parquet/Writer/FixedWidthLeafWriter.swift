import SluiceCore

/// A fixed-width physical value (INT32, INT64, FLOAT, DOUBLE) as the leaf writer needs it.
protocol ParquetPlainFixedValue: ParquetFixedWidthValue, Comparable {
    /// The values of this type in `values`, nil if they are of another physical type.
    static func extract(_ values: ParquetLeafValues) -> [Self]?
    /// Whether values can be NaN (and are then counted and left out of the bounds).
    static var isFloatingPoint: Bool { get }
    var isNaNValue: Bool { get }
    static func bounds(_ low: Self, _ high: Self) -> ParquetBounds
}

extension Int32: ParquetPlainFixedValue {
    static func extract(_ values: ParquetLeafValues) -> [Int32]? { if case .int32(let array) = values { array } else { nil } }
    static var isFloatingPoint: Bool { false }
    var isNaNValue: Bool { false }
    static func bounds(_ low: Int32, _ high: Int32) -> ParquetBounds { .int32(low, high) }
}

extension Int64: ParquetPlainFixedValue {
    static func extract(_ values: ParquetLeafValues) -> [Int64]? { if case .int64(let array) = values { array } else { nil } }
    static var isFloatingPoint: Bool { false }
    var isNaNValue: Bool { false }
    static func bounds(_ low: Int64, _ high: Int64) -> ParquetBounds { .int64(low, high) }
}

extension Float: ParquetPlainFixedValue {
    static func extract(_ values: ParquetLeafValues) -> [Float]? { if case .float(let array) = values { array } else { nil } }
    static var isFloatingPoint: Bool { true }
    var isNaNValue: Bool { isNaN }
    static func bounds(_ low: Float, _ high: Float) -> ParquetBounds { .float(low, high) }
}

extension Double: ParquetPlainFixedValue {
    static func extract(_ values: ParquetLeafValues) -> [Double]? { if case .double(let array) = values { array } else { nil } }
    static var isFloatingPoint: Bool { true }
    var isNaNValue: Bool { isNaN }
    static func bounds(_ low: Double, _ high: Double) -> ParquetBounds { .double(low, high) }
}

/// The leaf writer of INT32, INT64, FLOAT and DOUBLE columns: RLE_DICTIONARY pages while the
/// dictionary pays off and stays under its size, PLAIN pages after.
///
/// - Complexity: per value, one hash probe (dictionary) or one copy (plain), and two compares
///   for the bounds only when the value is new to the dictionary (plain: every value).
///
/// A struct, wrapped by one concrete class per type below: methods of a generic class called
/// through a protocol run unspecialized, and a class's stored properties cost an exclusivity
/// check at every access in the hot loops.
struct FixedWidthLeafEncoder<Value: ParquetPlainFixedValue> {
    let pages: ParquetPageWriter
    private let settings: ParquetLeafWriterSettings
    private let isRepeated: Bool
    private var usesDictionary: Bool
    private var dictionary = FixedWidthDictionary<Value>()
    /// Whether a page of the chunk was written with the dictionary (so it must be written).
    private var dictionaryPageNeeded = false
    private var chunkValueCount = 0
    private var indices: [UInt32] = []
    /// Positions that added a dictionary entry in the last lookup (so their bounds are noted).
    private var added: [Int] = []
    private var plainValues: [Value] = []
    private var minimum: Value?
    private var maximum: Value?
    private var nanCount = 0

    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) {
        self.pages = pages
        self.settings = settings
        self.isRepeated = pages.maxRepetitionLevel > 0
        self.usesDictionary = settings.dictionaryEnabled
    }

    mutating func append(_ batch: ParquetLeafBatch) throws(SluiceError) {
        guard let values = Value.extract(batch.values) else {
            throw SluiceError.internalError("parquet leaf writer for \(Value.self) given other values")
        }
        var valueStart = 0
        for range in parquetSlices(of: batch, repeated: isRepeated) {
            let valueCount = pages.appendLevels(batch, entries: range)
            guard valueCount <= values.count - valueStart else { throw SluiceError.internalError("parquet levels and values disagree") }
            let start = valueStart
            values.withUnsafeBufferPointer { buffer in
                add(UnsafeBufferPointer(rebasing: buffer[start ..< start + valueCount]))
            }
            valueStart += valueCount
            if settings.pageIsFull(bytes: pageBytesEstimate, entries: pages.pageEntryCount) { flushPage() }
        }
    }

    private mutating func add(_ values: UnsafeBufferPointer<Value>) {
        chunkValueCount += values.count
        if Value.isFloatingPoint {
            for value in values where value.isNaNValue { nanCount += 1 }
        }
        if usesDictionary {
            added.removeAll(keepingCapacity: true)
            dictionary.encode(values, into: &indices, added: &added)
            for position in added { noteBound(values[position]) }
            if dictionary.count * MemoryLayout<Value>.size > settings.dictionaryPageBytes
                || parquetDictionaryIsNotPayingOff(entries: dictionary.count, values: chunkValueCount) {
                flushPage()
                usesDictionary = false
            }
        } else {
            plainValues.append(contentsOf: values)
            noteBounds(of: values)
        }
    }

    /// Notes the least and greatest of `values` (NaNs left out) in one pass without optionals.
    private mutating func noteBounds(of values: UnsafeBufferPointer<Value>) {
        var position = 0
        if Value.isFloatingPoint {
            while position < values.count && values[position].isNaNValue { position += 1 }
        }
        guard position < values.count else { return }
        var low = values[position], high = low
        while position < values.count {
            let value = values[position]
            // A NaN compares false either way, so it moves neither bound.
            if value < low { low = value }
            if value > high { high = value }
            position += 1
        }
        noteBound(low)
        noteBound(high)
    }

    @inline(__always)
    private mutating func noteBound(_ value: Value) {
        if Value.isFloatingPoint && value.isNaNValue { return }
        if let low = minimum, let high = maximum {
            if value < low { minimum = value }
            if value > high { maximum = value }
        } else {
            minimum = value
            maximum = value
        }
    }

    private var pageBytesEstimate: Int {
        let values = usesDictionary
            ? indices.count * parquetBitWidth(dictionary.count) / 8
            : plainValues.count * MemoryLayout<Value>.size
        return values + pages.levelBytesEstimate
    }

    var estimatedChunkBytes: Int { pages.writtenBytes + pageBytesEstimate }

    private mutating func flushPage() {
        if !indices.isEmpty {
            let bitWidth = parquetBitWidth(dictionary.count)
            pages.writeDataPage(encoding: ParquetEncoding.rleDictionary) { body in
                body.append(UInt8(bitWidth))
                indices.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, into: &body) }
            }
            indices.removeAll(keepingCapacity: true)
            dictionaryPageNeeded = true
        } else {
            pages.writeDataPage(encoding: ParquetEncoding.plain) { body in
                plainValues.withUnsafeBytes { body.append(contentsOf: $0) }
            }
            plainValues.removeAll(keepingCapacity: true)
        }
    }

    mutating func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) {
        flushPage()
        if dictionaryPageNeeded {
            pages.writeDictionaryPage(count: dictionary.count) { body in
                dictionary.entries.withUnsafeBytes { body.append(contentsOf: $0) }
            }
        }
        let bounds = minimum.flatMap { low in maximum.map { Value.bounds(low, $0) } }
        let result = (bounds, nanCount)
        dictionary.removeAll()
        dictionaryPageNeeded = false
        usesDictionary = settings.dictionaryEnabled
        chunkValueCount = 0
        minimum = nil
        maximum = nil
        nanCount = 0
        return result
    }
}

/// The leaf writer of INT32 columns (int16, int32, date, decimals up to 9 digits).
final class Int32LeafWriter: ParquetLeafWriter {
    private var encoder: FixedWidthLeafEncoder<Int32>
    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) { encoder = FixedWidthLeafEncoder(pages: pages, settings: settings) }
    var pages: ParquetPageWriter { encoder.pages }
    func append(_ batch: ParquetLeafBatch) throws(SluiceError) { try encoder.append(batch) }
    var estimatedChunkBytes: Int { encoder.estimatedChunkBytes }
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) { encoder.finishChunk() }
}

/// The leaf writer of INT64 columns (int64, time, timestamps, decimals up to 18 digits).
final class Int64LeafWriter: ParquetLeafWriter {
    private var encoder: FixedWidthLeafEncoder<Int64>
    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) { encoder = FixedWidthLeafEncoder(pages: pages, settings: settings) }
    var pages: ParquetPageWriter { encoder.pages }
    func append(_ batch: ParquetLeafBatch) throws(SluiceError) { try encoder.append(batch) }
    var estimatedChunkBytes: Int { encoder.estimatedChunkBytes }
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) { encoder.finishChunk() }
}

/// The leaf writer of FLOAT columns.
final class FloatLeafWriter: ParquetLeafWriter {
    private var encoder: FixedWidthLeafEncoder<Float>
    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) { encoder = FixedWidthLeafEncoder(pages: pages, settings: settings) }
    var pages: ParquetPageWriter { encoder.pages }
    func append(_ batch: ParquetLeafBatch) throws(SluiceError) { try encoder.append(batch) }
    var estimatedChunkBytes: Int { encoder.estimatedChunkBytes }
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) { encoder.finishChunk() }
}

/// The leaf writer of DOUBLE columns.
final class DoubleLeafWriter: ParquetLeafWriter {
    private var encoder: FixedWidthLeafEncoder<Double>
    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) { encoder = FixedWidthLeafEncoder(pages: pages, settings: settings) }
    var pages: ParquetPageWriter { encoder.pages }
    func append(_ batch: ParquetLeafBatch) throws(SluiceError) { try encoder.append(batch) }
    var estimatedChunkBytes: Int { encoder.estimatedChunkBytes }
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) { encoder.finishChunk() }
}
