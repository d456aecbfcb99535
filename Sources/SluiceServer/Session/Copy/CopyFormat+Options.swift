import SluiceCore
import SluiceFormats
import SluiceSQL

extension CopyFormat {
    /// The format COPY's options ask for, checked as PostgreSQL checks them
    /// (`ProcessCopyOptions` in copy.c) and with its messages. `columnNames` are the copied
    /// columns, which FORCE_* options name; `isFrom` tells COPY FROM from COPY TO.
    init(options: [CopyOption], columnNames: [String], isFrom: Bool) throws(SluiceError) {
        var seen: Set<String> = []
        var kind = Kind.text
        var delimiter: [UInt8]?
        var null: [UInt8]?
        var header = Header.absent
        var quote: [UInt8]?
        var escape: [UInt8]?
        var forceNull: [String]?
        var forceNotNull: [String]?
        var forceQuote: [String]?
        var forceQuoteAll = false

        for option in options {
            guard seen.insert(option.name).inserted else { throw SluiceError(.syntaxError, "conflicting or redundant options") }
            switch option.name {
            case "format":
                switch try Self.text(option).lowercased() {
                case "text": kind = .text
                case "csv": kind = .csv
                case "binary": throw SluiceError(.featureNotSupported, "COPY BINARY is not supported", hint: "Use FORMAT text or FORMAT csv.")
                case let name: throw SluiceError(.invalidParameterValue, "COPY format \"\(name)\" not recognized")
                }
            case "freeze":
                break
            case "delimiter":
                delimiter = Array(try Self.text(option).utf8)
            case "null":
                null = Array(try Self.text(option).utf8)
            case "header":
                switch option.argument == nil ? "true" : try Self.text(option).lowercased() {
                case "true", "on", "1", "yes": header = .present
                case "false", "off", "0", "no": header = .absent
                case "match":
                    guard isFrom else { throw SluiceError(.featureNotSupported, "cannot use \"match\" with HEADER in COPY TO") }
                    header = .match
                default:
                    throw SluiceError(.invalidParameterValue, "header requires a Boolean value or \"match\"")
                }
            case "quote":
                quote = Array(try Self.text(option).utf8)
            case "escape":
                escape = Array(try Self.text(option).utf8)
            case "force_null":
                forceNull = try Self.columns(option)
            case "force_not_null":
                forceNotNull = try Self.columns(option)
            case "force_quote":
                if option.argument == .star { forceQuoteAll = true } else { forceQuote = try Self.columns(option) }
            case "encoding":
                guard ["utf8", "utf-8", "unicode", "sql_ascii"].contains(try Self.text(option).lowercased()) else {
                    throw SluiceError(.featureNotSupported, "COPY encoding \"\(try Self.text(option))\" is not supported", hint: "Sluice reads and writes UTF8.")
                }
            case "default", "on_error", "log_verbosity", "reject_limit":
                throw SluiceError(.featureNotSupported, "COPY option \"\(option.name)\" is not supported")
            default:
                throw SluiceError(.syntaxError, "option \"\(option.name)\" not recognized")
            }
        }

        self.init(kind: kind)
        let isCSV = kind == .csv
        if let delimiter {
            guard delimiter.count == 1 else { throw SluiceError(.featureNotSupported, "COPY delimiter must be a single one-byte character") }
            self.delimiter = delimiter[0]
        }
        if let null { self.null = null }
        self.header = header
        if let quote {
            guard isCSV else { throw SluiceError(.featureNotSupported, "COPY quote available only in CSV mode") }
            guard quote.count == 1 else { throw SluiceError(.featureNotSupported, "COPY quote must be a single one-byte character") }
            self.quote = quote[0]
        }
        self.escape = self.quote
        if let escape {
            guard isCSV else { throw SluiceError(.featureNotSupported, "COPY escape available only in CSV mode") }
            guard escape.count == 1 else { throw SluiceError(.featureNotSupported, "COPY escape must be a single one-byte character") }
            self.escape = escape[0]
        }
        if self.delimiter == 10 || self.delimiter == 13 {
            throw SluiceError(.invalidParameterValue, "COPY delimiter cannot be newline or carriage return")
        }
        if self.null.contains(10) || self.null.contains(13) {
            throw SluiceError(.invalidParameterValue, "COPY null representation cannot use newline or carriage return")
        }
        if !isCSV, Array(#"\.abcdefghijklmnopqrstuvwxyz0123456789"#.utf8).contains(self.delimiter) {
            throw SluiceError(.invalidParameterValue, "COPY delimiter cannot be \"\(String(decoding: [self.delimiter], as: UTF8.self))\"")
        }
        if isCSV, self.delimiter == self.quote {
            throw SluiceError(.invalidParameterValue, "COPY delimiter and quote must be different")
        }
        if self.null.contains(self.delimiter) {
            throw SluiceError(.invalidParameterValue, "COPY delimiter must not appear in the NULL specification")
        }
        if isCSV, self.null.contains(self.quote) {
            throw SluiceError(.invalidParameterValue, "CSV quote character must not appear in the NULL specification")
        }
        func positions(_ names: [String], option: String) throws(SluiceError) -> Set<Int> {
            var positions: Set<Int> = []
            for name in names {
                guard let position = columnNames.firstIndex(of: name) else {
                    throw SluiceError(.invalidColumnReference, "\(option) column \"\(name)\" not referenced by COPY")
                }
                positions.insert(position)
            }
            return positions
        }
        if forceQuote != nil || forceQuoteAll {
            guard isCSV else { throw SluiceError(.featureNotSupported, "COPY force quote available only in CSV mode") }
            guard !isFrom else { throw SluiceError(.featureNotSupported, "COPY force quote only available using COPY TO") }
            self.forceQuote = forceQuoteAll ? Set(columnNames.indices) : try positions(forceQuote ?? [], option: "FORCE_QUOTE")
        }
        if let forceNotNull {
            guard isCSV else { throw SluiceError(.featureNotSupported, "COPY force not null available only in CSV mode") }
            guard isFrom else { throw SluiceError(.featureNotSupported, "COPY force not null only available using COPY FROM") }
            self.forceNotNull = try positions(forceNotNull, option: "FORCE_NOT_NULL")
        }
        if let forceNull {
            guard isCSV else { throw SluiceError(.featureNotSupported, "COPY force null available only in CSV mode") }
            guard isFrom else { throw SluiceError(.featureNotSupported, "COPY force null only available using COPY FROM") }
            self.forceNull = try positions(forceNull, option: "FORCE_NULL")
        }
    }

    private static func text(_ option: CopyOption) throws(SluiceError) -> String {
        guard case .text(let value)? = option.argument else {
            throw SluiceError(.syntaxError, "\(option.name) requires a parameter")
        }
        return value
    }

    private static func columns(_ option: CopyOption) throws(SluiceError) -> [String] {
        switch option.argument {
        case .columns(let names)?: return names
        case .star?: throw SluiceError(.syntaxError, "argument to option \"\(option.name)\" must be a list of column names")
        case .text?, nil: throw SluiceError(.syntaxError, "argument to option \"\(option.name)\" must be a list of column names")
        }
    }
}
