import SluiceCore

// "Extended Query" in "Message Flow": Parse, Bind, Describe, Execute, Close, Sync, Flush.
extension ConnectionStateMachine {
    /// Postgres's SQLSTATE for an existing prepared statement name (`duplicate_prepared_statement`).
    static let duplicatePreparedStatement = SQLState("42P05")
    /// Postgres's SQLSTATE for an existing portal name (`duplicate_cursor`).
    static let duplicateCursor = SQLState("42P03")

    mutating func parseReceived(_ parse: PGParse) -> ConnectionAction {
        if !parse.statementName.isEmpty, statements[parse.statementName] != nil {
            return extendedQueryFailed(SluiceError(
                Self.duplicatePreparedStatement, "prepared statement \"\(parse.statementName)\" already exists"
            ))
        }
        // OID 0 means unspecified; an OID Sluice has no type for is left for the planner to infer.
        let parameterTypes = parse.parameterOIDs.map { $0 == 0 ? nil : DataType(oid: $0) }
        enter(.extendedQuery(.parsing(parse, parameterTypes: parameterTypes)))
        return ConnectionAction(effect: .prepare(parse.query, parameterTypes: parameterTypes))
    }

    mutating func parseCompleted(_ parse: PGParse, parameterTypes: [DataType?], prepared: [PGPreparedStatement]) -> ConnectionAction {
        guard prepared.count <= 1 else {
            var action = extendedQueryFailed(SluiceError(.syntaxError, "cannot insert multiple commands into a prepared statement"))
            action.closedStatements = prepared
            return action
        }
        let entry = PreparedStatementEntry(
            statement: prepared.first,
            parameterTypes: prepared.first?.parameterTypes ?? parameterTypes.map { $0 ?? .unknown }
        )
        let replaced = statements.updateValue(entry, forKey: parse.statementName)
        enter(.extendedQuery(.awaitingMessage))
        return ConnectionAction(messages: [.parseComplete], closedStatements: replaced?.statement.map { [$0] } ?? [])
    }

    mutating func bindReceived(_ bind: PGBind) -> ConnectionAction {
        enter(.extendedQuery(.awaitingMessage))
        guard let entry = statements[bind.statementName] else {
            return extendedQueryFailed(Self.unknownStatement(bind.statementName))
        }
        if !bind.portalName.isEmpty, portals[bind.portalName] != nil {
            return extendedQueryFailed(SluiceError(Self.duplicateCursor, "portal \"\(bind.portalName)\" already exists"))
        }
        guard bind.parameters.count == entry.parameterTypes.count else {
            return extendedQueryFailed(SluiceError(
                .protocolViolation,
                "bind message supplies \(bind.parameters.count) parameters, but prepared statement \"\(bind.statementName)\" requires \(entry.parameterTypes.count)"
            ))
        }
        let columnCount = entry.statement?.resultColumns?.count ?? 0
        if bind.resultFormats.count > 1, bind.resultFormats.count != columnCount {
            return extendedQueryFailed(SluiceError(
                .protocolViolation,
                "bind message has \(bind.resultFormats.count) result formats but query has \(columnCount) columns"
            ))
        }
        var values: [Value] = []
        do throws(SluiceError) {
            for (index, (bytes, type)) in zip(bind.parameters, entry.parameterTypes).enumerated() {
                guard let bytes else {
                    values.append(.null)
                    continue
                }
                switch PGFormat.format(at: index, of: bind.parameterFormats) {
                case .text: values.append(try Value(parsingText: try PGMessageBody.validatedString(bytes), as: type))
                case .binary: values.append(try Value(parsingBinary: bytes, as: type))
                }
            }
        } catch {
            return extendedQueryFailed(error)
        }
        portals[bind.portalName] = PGPortal(statement: entry, parameters: values, resultFormats: bind.resultFormats)
        return .send(.bindComplete)
    }

    mutating func describeReceived(_ target: PGTarget) -> ConnectionAction {
        enter(.extendedQuery(.awaitingMessage))
        switch target {
        case .statement(let name):
            guard let entry = statements[name] else { return extendedQueryFailed(Self.unknownStatement(name)) }
            return ConnectionAction(messages: [
                .parameterDescription(entry.parameterTypes.map(\.oid)),
                Self.rowDescription(of: entry, formats: []),
            ])
        case .portal(let name):
            guard let portal = portals[name] else { return extendedQueryFailed(Self.unknownPortal(name)) }
            return .send(Self.rowDescription(of: portal.statement, formats: portal.resultFormats))
        }
    }

    mutating func executeReceived(_ execute: PGExecute) -> ConnectionAction {
        enter(.extendedQuery(.awaitingMessage))
        guard var portal = portals[execute.portalName] else {
            return extendedQueryFailed(Self.unknownPortal(execute.portalName))
        }
        let maxRows = execute.maxRows > 0 ? Int(execute.maxRows) : .max
        switch portal.progress {
        case .unexecuted:
            guard let statement = portal.statement.statement else {
                portal.progress = .completed(commandTag: "")
                portals[execute.portalName] = portal
                return .send(.emptyQueryResponse)
            }
            enter(.extendedQuery(.executing(portalName: execute.portalName, maxRows: maxRows)))
            return ConnectionAction(effect: .execute(statement, parameters: portal.parameters))
        case .suspended(let cursor):
            return sendRows(of: cursor, portalName: execute.portalName, maxRows: maxRows, messages: [])
        case .completed(let commandTag):
            // Postgres answers a finished portal with its tag again, counting no rows.
            if commandTag.isEmpty { return .send(.emptyQueryResponse) }
            return .send(.commandComplete(Self.commandTag(commandTag, rowCount: 0)))
        }
    }

    mutating func portalExecuted(_ portalName: String, maxRows: Int, result: PGStatementResult) -> ConnectionAction {
        enter(.extendedQuery(.awaitingMessage))
        var messages = Self.noticeMessages(result)
        if result.isEmptyQuery {
            portals[portalName]?.progress = .completed(commandTag: "")
            messages.append(.emptyQueryResponse)
            return ConnectionAction(messages: messages)
        }
        return sendRows(of: PGResultCursor(result), portalName: portalName, maxRows: maxRows, messages: messages)
    }

    /// Sends up to `maxRows` rows (`sent` of them already sent by this Execute), asking the
    /// result's stream for more as the held ones run out; then PortalSuspended if rows remain or
    /// CommandComplete if not.
    mutating func sendRows(
        of cursor: PGResultCursor, portalName: String, maxRows: Int, messages: [PGBackendMessage], sent: Int = 0
    ) -> ConnectionAction {
        var cursor = cursor
        var messages = messages
        let formats = portals[portalName]?.resultFormats ?? []
        let rows = cursor.nextRows(limit: maxRows - sent, formats: formats)
        let sentNow = sent + rows.count
        messages.append(contentsOf: rows.map(PGBackendMessage.dataRow))
        if sentNow < maxRows, cursor.needsPull, let stream = cursor.stream {
            enter(.extendedQuery(.streaming(portalName: portalName, maxRows: maxRows, sent: sentNow, cursor: cursor)))
            return ConnectionAction(messages: messages, effect: .pullRows(stream))
        }
        enter(.extendedQuery(.awaitingMessage))
        if !cursor.isExhausted {
            cursor.suspend()
            portals[portalName]?.progress = .suspended(cursor)
            messages.append(.portalSuspended)
            return ConnectionAction(messages: messages)
        }
        // A portal fetched in parts reports the rows of its last part, as Postgres does.
        let tag = cursor.wasSuspended ? Self.commandTag(cursor.commandTag, rowCount: sentNow) : cursor.commandTag
        portals[portalName]?.progress = .completed(commandTag: cursor.commandTag)
        messages.append(.commandComplete(tag))
        messages.append(contentsOf: Self.parameterStatusMessages(cursor.result))
        return ConnectionAction(messages: messages)
    }

    mutating func closeReceived(_ target: PGTarget) -> ConnectionAction {
        enter(.extendedQuery(.awaitingMessage))
        switch target {
        case .statement(let name):
            // Closing a name that does not exist is not an error ("Close" in "Message Formats").
            let removed = statements.removeValue(forKey: name)
            return ConnectionAction(messages: [.closeComplete], closedStatements: removed?.statement.map { [$0] } ?? [])
        case .portal(let name):
            portals[name] = nil
            return .send(.closeComplete)
        }
    }

    mutating func syncReceived() -> ConnectionAction {
        enter(.ready)
        // Portals live until the end of the transaction; outside a block, Sync ends it.
        if transactionStatus == .idle { portals.removeAll() }
        return .send(.readyForQuery(transactionStatus))
    }

    /// Reports `error` and discards messages until Sync.
    mutating func extendedQueryFailed(_ error: SluiceError) -> ConnectionAction {
        enter(.extendedQueryFailed)
        return .send(.errorResponse(PGErrorFields(.error, error)))
    }

    static func rowDescription(of entry: PreparedStatementEntry, formats: [PGFormat]) -> PGBackendMessage {
        guard let columns = entry.statement?.resultColumns else { return .noData }
        return .rowDescription(PGRowDescriptionField.fields(for: columns, formats: formats))
    }

    /// `tag` with its trailing row count replaced, for tags that end in one (SELECT, FETCH, …).
    static func commandTag(_ tag: String, rowCount: Int) -> String {
        let words = tag.split(separator: " ")
        guard words.count >= 2, let last = words.last, last.allSatisfy(\.isNumber) else { return tag }
        return words.dropLast().joined(separator: " ") + " \(rowCount)"
    }

    static func unknownStatement(_ name: String) -> SluiceError {
        name.isEmpty
            ? SluiceError(.invalidSQLStatementName, "unnamed prepared statement does not exist")
            : SluiceError(.invalidSQLStatementName, "prepared statement \"\(name)\" does not exist")
    }

    static func unknownPortal(_ name: String) -> SluiceError {
        SluiceError(.invalidCursorName, "portal \"\(name)\" does not exist")
    }
}
