import SluiceCore
import SluiceExpr
import SluiceSQL

/// Postgres's object identifier types, which clients use to look up catalog rows by name
/// (`'t'::regclass`) or to write OID literals (`'16384'::oid`). Sluice represents all of them
/// as `integer`.
enum ObjectIdentifierType: String {
    case oid, regclass, regtype, regproc, regprocedure, regnamespace, regrole, regoper, regconfig
}

extension Binder {
    mutating func bindObjectIdentifierCast(
        _ operand: ScalarExpr, to target: ObjectIdentifierType, position: Int?
    ) throws(SluiceError) -> ScalarExpr {
        if case .literal(let value, let type) = operand, type == .unknown || type == .varchar, case .string(let text) = value {
            if let number = Int32(text.trimmingSpaces) { return .literal(.int32(number), .int32) }
            switch target {
            case .regclass:
                guard let name = SystemFunctions.relationName(text) else {
                    throw SluiceError(.invalidName, "invalid name syntax", position: position)
                }
                if name.qualifier.isEmpty || name.qualifier == ["pg_catalog"], let oid = SystemCatalog.catalogTableOIDs[name.name] {
                    return .literal(.int32(oid), .int32)
                }
                let relation = try relation(named: name, position: position)
                return .literal(.int32(Int32(relation.id)), .int32)
            case .regtype:
                let dataType = try SQLParser.parseTypeName(text).resolvedDataType()
                return .literal(.int32(dataType.oid), .int32)
            case .regproc, .regprocedure:
                // A function's name, which is how a regproc prints; `pg_type.typinput` holds names.
                var name = Substring(text.trimmingSpaces)
                if let parenthesis = name.firstIndex(of: "(") { name = name[..<parenthesis] }
                if name.hasPrefix("pg_catalog.") { name = name.dropFirst("pg_catalog.".count) }
                return .literal(.string(String(name)), .varchar)
            case .regnamespace:
                switch text {
                case "pg_catalog": return .literal(.int32(11), .int32)
                case "public": return .literal(.int32(2200), .int32)
                default: throw SluiceError(.invalidSchemaName, "schema \"\(text)\" does not exist", position: position)
                }
            default:
                throw SluiceError(.invalidTextRepresentation, "invalid input syntax for type \(target.rawValue): \"\(text)\"", position: position)
            }
        }
        var operand = operand
        if operand.type == .unknown {
            // A parameter or NULL: a name for the name-resolving types, a number for oid.
            if target == .regclass || target == .regtype {
                operand = try coerce(operand, to: .varchar, position: position)
            } else {
                return try coerce(operand, to: .int32, position: position)
            }
        }
        if operand.type.isInteger { return try coerce(operand, to: .int32, position: position) }
        if operand.type == .varchar {
            // A name known only at run time: looked up per row.
            switch target {
            case .regclass: return .call(SystemFunctions.toRegClass(catalog: catalog, session: session), [operand])
            case .regtype: return .call(SystemFunctions.toRegType, [operand])
            default: return .cast(operand, .int32)
            }
        }
        throw SluiceError(.cannotCoerce, "cannot cast type \(operand.type.sqlName) to \(target.rawValue)", position: position)
    }
}
