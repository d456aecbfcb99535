import SluiceCore

/// How a ``ScalarFunction`` was made: the call of a registry entry point or a factory, with
/// every argument its kernel depends on. A stored plan keeps the origin instead of the kernel
/// (a closure), and ``ScalarFunction/init(replaying:)`` makes the same call again.
///
/// Invariant: replaying an origin gives a function of the same name, argument types, result
/// type and kernel as the one it was set on. A factory whose kernel captures a value (a window
/// size, a flag) names that value here; a function made where no origin is set has none, and a
/// plan holding it is not stored.
package enum FunctionOrigin: Sendable, Equatable {
    /// ``FunctionRegistry/resolve(name:argumentTypes:)`` with these argument types (as given,
    /// before casts).
    case function(name: String, argumentTypes: [DataType])
    /// ``FunctionRegistry/resolveOperator(_:_:_:)``.
    case binaryOperator(String, DataType, DataType)
    /// ``FunctionRegistry/resolveUnary(_:_:)``.
    case unaryOperator(String, DataType)
    /// ``ScalarFunction/comparison(_:_:)``.
    case comparison(ComparisonOperator, DataType)
    /// ``ScalarFunction/distinctFrom(_:negated:)``.
    case distinctFrom(DataType, negated: Bool)
    /// ``ArrayFunctions/constructor(elementType:count:)``.
    case arrayConstructor(elementType: DataType, count: Int)
    /// ``ArrayFunctions/quantified(_:all:elementType:)``.
    case quantified(ComparisonOperator, all: Bool, elementType: DataType)
    /// ``ArrayFunctions/toString(elementType:)``.
    case arrayToString(elementType: DataType)
    /// ``ArrayFunctions/element(elementType:)``.
    case arrayElement(elementType: DataType)
    /// ``ArrayFunctions/slice(elementType:hasLower:hasUpper:)``.
    case arraySlice(elementType: DataType, hasLower: Bool, hasUpper: Bool)
    /// ``ArrayFunctions/upperBound(elementType:name:)``.
    case arrayUpperBound(elementType: DataType, name: String)
    /// ``ArrayFunctions/cardinality(elementType:)``.
    case cardinality(elementType: DataType)
    /// ``TimeZoneFunctions/atTimeZone(_:zoneType:)``.
    case atTimeZone(DataType, zoneType: DataType)
    /// ``TimeWindows/end(_:size:)``: the window's size is in the kernel.
    case windowEnd(DataType, size: Int64)
    /// ``TimeWindows/hopStarts(_:slide:size:offset:)``: slide, size and offset are in the kernel.
    case hopStarts(DataType, slide: Int64, size: Int64, offset: Int64)
    /// ``TimeWindows/cumulateEnds(_:step:size:offset:)``: step, size and offset are in the kernel.
    case cumulateEnds(DataType, step: Int64, size: Int64, offset: Int64)
    /// ``JSONFunctions/arrayElements(asText:)``.
    case jsonArrayElements(asText: Bool)
    /// ``JSONFunctions/members(asText:keysOnly:)``.
    case jsonMembers(asText: Bool, keysOnly: Bool)
    /// ``StatisticalAggregate/finish(sumType:)``.
    case statisticalFinish(StatisticalAggregate, sumType: DataType)
    /// ``OrderedSetAggregate/finish(elementType:)``.
    case orderedSetFinish(OrderedSetAggregate, elementType: DataType)
    /// ``JSONFunctions/buildObject(_:)``.
    case jsonBuildObject(argumentTypes: [DataType])
    /// ``StructFunctions/constructor(_:)``.
    case rowConstructor(argumentTypes: [DataType])
    /// ``StructFunctions/field(_:of:)``.
    case structField(Int, type: DataType)
    /// ``SetReturningFunctions/subscripts(of:)``.
    case subscripts(arrayType: DataType)
    /// ``SetReturningFunctions/series(count:)``.
    case series(count: Int)
    /// ``SetReturningFunctions/expandArray(elementType:)``.
    case expandArray(elementType: DataType)
    /// ``SetReturningFunctions/field(_:of:)``.
    case setReturningField(Int, elementType: DataType)
    /// ``GroupingFunctions/grouping(masks:)``: the masks are in the kernel.
    case grouping(masks: [Int32])
    /// ``GroupingFunctions/copiesArray(intersect:all:)``.
    case setOperationCopies(intersect: Bool, all: Bool)
}

extension ScalarFunction {
    /// The function `origin` makes, made again (its origin set). Throws what the registry
    /// throws when the call no longer resolves.
    package init(replaying origin: FunctionOrigin) throws(SluiceError) {
        switch origin {
        case .function(let name, let argumentTypes): self = try FunctionRegistry.resolve(name: name, argumentTypes: argumentTypes)
        case .binaryOperator(let symbol, let left, let right): self = try FunctionRegistry.resolveOperator(symbol, left, right)
        case .unaryOperator(let symbol, let operand): self = try FunctionRegistry.resolveUnary(symbol, operand)
        case .comparison(let op, let type): self = .comparison(op, type)
        case .distinctFrom(let type, let negated): self = .distinctFrom(type, negated: negated)
        case .arrayConstructor(let elementType, let count): self = ArrayFunctions.constructor(elementType: elementType, count: count)
        case .quantified(let op, let all, let elementType): self = ArrayFunctions.quantified(op, all: all, elementType: elementType)
        case .arrayToString(let elementType): self = ArrayFunctions.toString(elementType: elementType)
        case .arrayElement(let elementType): self = ArrayFunctions.element(elementType: elementType)
        case .arraySlice(let elementType, let hasLower, let hasUpper):
            self = ArrayFunctions.slice(elementType: elementType, hasLower: hasLower, hasUpper: hasUpper)
        case .arrayUpperBound(let elementType, let name): self = ArrayFunctions.upperBound(elementType: elementType, name: name)
        case .cardinality(let elementType): self = ArrayFunctions.cardinality(elementType: elementType)
        case .atTimeZone(let type, let zoneType): self = TimeZoneFunctions.atTimeZone(type, zoneType: zoneType)
        case .windowEnd(let type, let size): self = TimeWindows.end(type, size: size)
        case .hopStarts(let type, let slide, let size, let offset):
            // The kernel divides by the slide and repeats size / slide times (the binder's checks).
            guard slide > 0, size > 0, size % slide == 0, size / slide <= 10_000 else {
                throw PlanReader.corrupted("hop window of size \(size) and slide \(slide)")
            }
            self = TimeWindows.hopStarts(type, slide: slide, size: size, offset: offset)
        case .cumulateEnds(let type, let step, let size, let offset):
            guard step > 0, size > 0, size % step == 0, size / step <= 10_000 else {
                throw PlanReader.corrupted("cumulate window of size \(size) and step \(step)")
            }
            self = TimeWindows.cumulateEnds(type, step: step, size: size, offset: offset)
        case .jsonArrayElements(let asText): self = JSONFunctions.arrayElements(asText: asText)
        case .jsonMembers(let asText, let keysOnly): self = JSONFunctions.members(asText: asText, keysOnly: keysOnly)
        case .statisticalFinish(let aggregate, let sumType): self = aggregate.finish(sumType: sumType)
        case .orderedSetFinish(let aggregate, let elementType): self = aggregate.finish(elementType: elementType)
        case .jsonBuildObject(let argumentTypes):
            guard argumentTypes.count % 2 == 0 else { throw PlanReader.corrupted("json_build_object of \(argumentTypes.count) arguments") }
            self = JSONFunctions.buildObject(argumentTypes)
        case .rowConstructor(let argumentTypes): self = StructFunctions.constructor(argumentTypes)
        case .structField(let index, let type):
            try Self.requireField(index, of: type)
            self = StructFunctions.field(index, of: type)
        case .subscripts(let arrayType): self = SetReturningFunctions.subscripts(of: arrayType)
        case .series(let count):
            guard count == 2 || count == 3 else { throw PlanReader.corrupted("generate_series of \(count) arguments") }
            self = SetReturningFunctions.series(count: count)
        case .expandArray(let elementType): self = SetReturningFunctions.expandArray(elementType: elementType).function
        case .setReturningField(let index, let elementType):
            try Self.requireField(index, of: elementType)
            self = SetReturningFunctions.field(index, of: elementType)
        case .grouping(let masks): self = GroupingFunctions.grouping(masks: masks)
        case .setOperationCopies(let intersect, let all): self = GroupingFunctions.copiesArray(intersect: intersect, all: all)
        }
        self.origin = origin
    }

    /// Throws unless `type` is a struct with a field at `index` (the factories trap otherwise).
    private static func requireField(_ index: Int, of type: DataType) throws(SluiceError) {
        guard case .structure(let fields) = type, fields.indices.contains(index) else {
            throw PlanReader.corrupted("field \(index) of \(type.sqlName)")
        }
    }
}
