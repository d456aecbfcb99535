import SluiceCore

extension Parser {
    /// `EXTRACT`, `SUBSTRING`, `POSITION`, `TRIM`, `OVERLAY` in their keyword forms; nil (cursor
    /// unmoved) when the call is written as a plain function call, as `substring(x, 1, 2)`.
    mutating func parseSpecialFunction(_ word: String) throws(SluiceError) -> Expression? {
        let start = position
        let saved = index
        index += 2  // name and "("
        switch word {
        case "extract":
            let field: String
            switch current.kind {
            case .word, .quotedIdentifier, .string: field = advance().text.lowercased()
            default: throw syntaxError()
            }
            guard consumeKeyword("from") else {
                index = saved
                return nil
            }
            let source = try parseExpression()
            try expectSymbol(")")
            return Expression(.extract(field: field, from: source), at: start)
        case "substring":
            let source = try parseExpression()
            var from: Expression?
            var length: Expression?
            if consumeKeyword("from") {
                from = try parseExpression()
                if consumeKeyword("for") { length = try parseExpression() }
            } else if consumeKeyword("for") {
                length = try parseExpression()
                if consumeKeyword("from") { from = try parseExpression() }
            } else {
                index = saved
                return nil
            }
            try expectSymbol(")")
            return Expression(.substring(source, from: from, for: length), at: start)
        case "position":
            // The needle is a `b_expr`: `IN` must not be read as the IN predicate.
            let needle = try parseSubexpression(above: Precedence.likeBetweenIn)
            guard consumeKeyword("in") else {
                index = saved
                return nil
            }
            let haystack = try parseExpression()
            try expectSymbol(")")
            return Expression(.position(needle, in: haystack), at: start)
        case "trim":
            var side = TrimSide.both
            if consumeKeyword("both") {
                side = .both
            } else if consumeKeyword("leading") {
                side = .leading
            } else if consumeKeyword("trailing") {
                side = .trailing
            }
            var characters: Expression?
            let source: Expression
            if consumeKeyword("from") {
                source = try parseExpression()
            } else {
                let first = try parseExpression()
                if consumeKeyword("from") {
                    characters = first
                    source = try parseExpression()
                } else if consumeSymbol(",") {
                    source = first
                    characters = try parseExpression()
                } else {
                    source = first
                }
            }
            try expectSymbol(")")
            return Expression(.trim(source, side: side, characters: characters), at: start)
        default:  // overlay
            let source = try parseExpression()
            guard consumeKeyword("placing") else {
                index = saved
                return nil
            }
            let replacement = try parseExpression()
            try expectKeyword("from")
            let from = try parseExpression()
            let length: Expression? = consumeKeyword("for") ? try parseExpression() : nil
            try expectSymbol(")")
            return Expression(.overlay(source, placing: replacement, from: from, for: length), at: start)
        }
    }
}
