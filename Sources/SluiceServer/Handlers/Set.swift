import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceSQL

/// SET and RESET of a session setting, and SET ROLE / RESET ROLE.
enum SetHandler {
    /// Settings whose changes the client is told of (ParameterStatus), as PostgreSQL reports them.
    private static let reported: Set<String> = ["timezone", "application_name", "datestyle", "intervalstyle", "client_encoding", "standard_conforming_strings"]

    /// `SET name = value` (`SET name TO DEFAULT` is a RESET); each setting's value is checked
    /// as PostgreSQL checks it.
    static func run(_ name: String, to value: String?, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        var text = value ?? ""
        if text.hasPrefix("'") && text.hasSuffix("'") && text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if name == "role" {
            let superuser = try session.setRole(text.lowercased() == "none" ? nil : text)
            return PGStatementResult(commandTag: "SET", parameterChanges: [("is_superuser", superuser ? "on" : "off")])
        }
        let settingName = name == "time zone" ? "timezone" : name
        guard SessionDefaults.isKnown(settingName) else {
            throw SluiceError(.undefinedObject, "unrecognized configuration parameter \"\(name)\"")
        }
        if settingName == "statement_timeout", SQLSession.milliseconds(text) == nil {
            throw SluiceError(
                .invalidParameterValue, "invalid value for parameter \"statement_timeout\": \"\(text)\"",
                hint: "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
        }
        if settingName == "query_memory_limit", SQLSession.bytes(text) == nil {
            throw SluiceError(
                .invalidParameterValue, "invalid value for parameter \"query_memory_limit\": \"\(text)\"",
                hint: "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
        }
        if settingName == "timezone" {
            // A zone of the system's tzdata, a POSIX zone string or an offset in hours, as
            // in PostgreSQL; shown by its own name.
            if text.lowercased() == "local" || text.lowercased() == "default" {
                text = "UTC"
            } else {
                do {
                    text = try session.database.timeZones.sessionTimeZone(setting: text).name
                } catch {
                    throw SluiceError(.invalidParameterValue, "invalid value for parameter \"TimeZone\": \"\(text)\"")
                }
            }
        }
        if settingName == "sql_dialect" {
            guard let dialect = SQLDialect(setting: text) else {
                throw SluiceError(
                    .invalidParameterValue, "invalid value for parameter \"sql_dialect\": \"\(text)\"",
                    hint: "Available values: risingwave, flink.")
            }
            text = dialect.rawValue
        }
        if settingName == FlinkDialect.checkpointIntervalKey {
            guard let milliseconds = FlinkDialect.durationMilliseconds(text), milliseconds > 0 else {
                throw SluiceError(
                    .invalidParameterValue, "invalid value for parameter \"\(settingName)\": \"\(text)\"",
                    hint: "A duration: a number and a unit (ms, s, min, h, d), as '10s' or '1 min'.")
            }
        }
        if settingName == "barrier_interval_ms" {
            guard let milliseconds = Int(text), milliseconds > 0 else {
                throw SluiceError(.invalidParameterValue, "barrier_interval_ms must be a positive number of milliseconds")
            }
            session.database.streams.runtime.barrierIntervalMilliseconds = milliseconds
        }
        session.updateSettings { $0[settingName] = text }
        let displayName = ["timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"][settingName] ?? settingName
        return PGStatementResult(commandTag: "SET", parameterChanges: reported.contains(settingName) ? [(displayName, text)] : [])
    }

    /// `RESET name`: the setting's default again; `RESET ROLE`: the session's user again.
    static func runReset(_ name: String, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        if name == "role" {
            let superuser = try session.setRole(nil)
            return PGStatementResult(commandTag: "RESET", parameterChanges: [("is_superuser", superuser ? "on" : "off")])
        }
        if name == "all" {
            // Every setting back to its default (Flink's bare `RESET` too); the role stays.
            session.updateSettings { settings in
                for key in Array(settings.keys) { settings[key] = SessionDefaults.value(of: key) }
            }
            return PGStatementResult(commandTag: "RESET")
        }
        let value = SessionDefaults.value(of: name)
        session.updateSettings { $0[name] = value }
        return PGStatementResult(commandTag: "RESET")
    }
}
