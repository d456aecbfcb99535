import SluiceCore

/// The signatures of Sluice's built-in scalar functions, by name.
///
/// Polymorphic functions (`concat`, `concat_ws`, `greatest`, `least`, `nullif`) are resolved
/// in ``FunctionRegistry`` directly; everything else is a list of ``Overload``s.
enum BuiltinCatalog {
    /// The overloads of `name`, or nil when Sluice has no such function.
    static func overloads(named name: String) -> [Overload]? {
        stringOverloads(named: name) ?? mathOverloads(named: name) ?? TemporalFunctions.overloads(named: name)
            ?? TimeWindows.overloads(named: name) ?? JSONFunctions.overloads(named: name) ?? CryptoFunctions.overloads(named: name)
    }

    static func stringOverloads(named name: String) -> [Overload]? {
        let text = DataType.varchar
        switch name {
        case "upper": return [Overload([text], StringFunctions.upper())]
        case "lower": return [Overload([text], StringFunctions.lower())]
        case "initcap": return [Overload([text], StringFunctions.initcap())]
        case "length", "char_length", "character_length": return [Overload([text], StringFunctions.length(name))]
        case "octet_length":
            return [Overload([text], StringFunctions.octetLength(text)), Overload([.bytea], StringFunctions.octetLength(.bytea))]
        case "bit_length": return [Overload([text], StringFunctions.bitLength())]
        case "substr", "substring":
            return [
                Overload([text, .int32], StringFunctions.substring(name, withLength: false)),
                Overload([text, .int32, .int32], StringFunctions.substring(name, withLength: true)),
            ]
        case "strpos", "position": return [Overload([text, text], StringFunctions.strpos(name))]
        // `text LIKE pattern ESCAPE escape`; the two-argument forms are operators.
        case "like", "not like", "ilike", "not ilike":
            let function = PatternMatching.like(negated: name.hasPrefix("not"), caseInsensitive: name.hasSuffix("ilike"), withEscape: true)
            return [Overload([text, text, text], function)]
        case "left": return [Overload([text, .int32], StringFunctions.leftOrRight(fromLeft: true))]
        case "right": return [Overload([text, .int32], StringFunctions.leftOrRight(fromLeft: false))]
        case "lpad", "rpad":
            let left = name == "lpad"
            return [
                Overload([text, .int32], StringFunctions.pad(left: left, withFill: false)),
                Overload([text, .int32, text], StringFunctions.pad(left: left, withFill: true)),
            ]
        case "ltrim", "rtrim", "btrim", "trim":
            let sides: StringFunctions.TrimSides = name == "ltrim" ? .leading : (name == "rtrim" ? .trailing : .both)
            return [
                Overload([text], StringFunctions.trim(sides, withCharacters: false)),
                Overload([text, text], StringFunctions.trim(sides, withCharacters: true)),
            ]
        case "replace": return [Overload([text, text, text], StringFunctions.replace())]
        case "split_part": return [Overload([text, text, .int32], StringFunctions.splitPart())]
        case "reverse": return [Overload([text], StringFunctions.reverse())]
        case "repeat": return [Overload([text, .int32], StringFunctions.repeatString())]
        case "starts_with": return [Overload([text, text], StringFunctions.startsWith())]
        case "ascii": return [Overload([text], StringFunctions.ascii())]
        case "chr": return [Overload([.int32], StringFunctions.chr())]
        case "md5": return [Overload([text], StringFunctions.md5())]
        case "regexp_replace":
            return [
                Overload([text, text, text], RegexFunctions.regexpReplace(withFlags: false)),
                Overload([text, text, text, text], RegexFunctions.regexpReplace(withFlags: true)),
            ]
        case "regexp_match":
            return [
                Overload([text, text], RegexFunctions.regexpMatch(withFlags: false)),
                Overload([text, text, text], RegexFunctions.regexpMatch(withFlags: true)),
            ]
        case "similar_to_escape":
            return [Overload([text], RegexFunctions.similarToEscape(withEscape: false)), Overload([text, text], RegexFunctions.similarToEscape(withEscape: true))]
        case "regexp_like", "regexp":
            // (Flink's REGEXP(string, pattern): whether a part of the string matches.)
            return [
                Overload([text, text], RegexFunctions.regexpLike(withFlags: false)),
                Overload([text, text, text], RegexFunctions.regexpLike(withFlags: true)),
            ]
        case "textcat": return [Overload([text, text], StringFunctions.concatOperator())]
        default: return nil
        }
    }

    static func mathOverloads(named name: String) -> [Overload]? {
        let float = DataType.float64
        let numeric = DataType.numeric
        switch name {
        case "abs":
            return [DataType.int16, .int32, .int64, .float32, .float64, numeric].map { type in
                Overload([type]) { types in MathFunctions.abs(types[0])! }
            }
        case "round", "trunc", "floor", "ceil", "ceiling":
            let floatRule: FloatingPointRoundingRule = switch name {
            case "round": .toNearestOrEven
            case "trunc": .towardZero
            case "floor": .down
            default: .up
            }
            let numericRule: Decimal.RoundingRule = switch name {
            case "round": .halfAwayFromZero
            case "trunc": .towardZero
            case "floor": .down
            default: .up
            }
            var overloads = [
                Overload([float], MathFunctions.rounding(name, floatRule)),
                Overload([numeric]) { types in MathFunctions.numericRounding(name, types[0], numericRule) },
            ]
            if name == "round" || name == "trunc" {
                overloads.append(Overload([numeric, .int32]) { types in MathFunctions.numericRoundingToScale(name, types[0], numericRule) })
            }
            return overloads
        case "sign":
            return [Overload([float], MathFunctions.signFunction()), Overload([numeric]) { types in MathFunctions.numericSign(types[0]) }]
        case "scale", "min_scale":
            return [Overload([numeric]) { types in MathFunctions.numericScale(name, types[0], minimal: name == "min_scale") }]
        case "trim_scale":
            return [Overload([numeric]) { types in MathFunctions.numericTrimScale(types[0]) }]
        case "mod":
            var overloads = [DataType.int16, .int32, .int64].map { type in Overload([type, type], MathFunctions.mod(type)!) }
            overloads.append(Overload([numeric, numeric]) { types in MathFunctions.numericArithmetic("mod", .modulo, types[0], types[1]) })
            return overloads
        case "sqrt": return [Overload([float], MathFunctions.sqrtFunction())]
        case "cbrt": return [Overload([float], MathFunctions.cbrtFunction())]
        case "exp": return [Overload([float], MathFunctions.expFunction())]
        case "ln": return [Overload([float], MathFunctions.logarithm("ln", base10: false))]
        case "log", "log10":
            var overloads = [Overload([float], MathFunctions.logarithm(name, base10: true))]
            if name == "log" { overloads.append(Overload([float, float], MathFunctions.logarithmWithBase())) }
            return overloads
        case "power", "pow": return [Overload([float, float], MathFunctions.power(name))]
        case "degrees": return [Overload([float], MathFunctions.degreesFunction())]
        case "radians": return [Overload([float], MathFunctions.radiansFunction())]
        case "sin", "cos", "tan", "cot", "asin", "acos", "atan":
            return [Overload([float], MathFunctions.trigonometric(name)!)]
        case "atan2": return [Overload([float, float], MathFunctions.atan2Function())]
        case "pi": return [Overload([], MathFunctions.pi())]
        case "random": return [Overload([], MathFunctions.random())]
        default: return nil
        }
    }
}
