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
    /// ``JSONFunctions/arrayElements(asText:)``.
    case jsonArrayElements(asText: Bool)
    /// ``JSONFunctions/members(asText:keysOnly:)``.
    case jsonMembers(asText: Bool, keysOnly: Bool)
    /// ``StatisticalAggregate/finish(sumType:)``.
    case statisticalFinish(StatisticalAggregate, sumType: DataType)
    /// ``OrderedSetAggregate/finish(elementType:)``.
    case orderedSetFinish(OrderedSetAggregate, elementType: DataType)
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
        case .jsonArrayElements(let asText): self = JSONFunctions.arrayElements(asText: asText)
        case .jsonMembers(let asText, let keysOnly): self = JSONFunctions.members(asText: asText, keysOnly: keysOnly)
        case .statisticalFinish(let aggregate, let sumType): self = aggregate.finish(sumType: sumType)
        case .orderedSetFinish(let aggregate, let elementType): self = aggregate.finish(elementType: elementType)
        }
        self.origin = origin
    }
}
