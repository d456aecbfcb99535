import SluiceCore
import SluiceSQL

extension Binder {
    /// Flink's `CREATE TABLE c.db.t AS SELECT …` and `INSERT INTO c.db.t SELECT …` into a
    /// table of an Iceberg catalog of the session: a job that runs until stopped, which is an
    /// exactly-once Iceberg sink named as Flink names the job (`insert-into_c.db.t`); CREATE
    /// makes the table, INSERT needs it to exist. The sink keeps the catalog's options, so it
    /// runs on after the session and across restarts; its definition is the sink's own SQL.
    mutating func bindIcebergCatalogJob(_ name: ObjectName, query: Query?, columns: [String], creates: Bool) throws(SluiceError) -> PlannedStatement {
        guard let query else { throw SluiceError(.syntaxError, "INSERT INTO an Iceberg catalog's table takes a query") }
        guard columns.isEmpty else {
            throw SluiceError(.featureNotSupported, "a column list for an Iceberg catalog's table is not supported; name the columns in the query")
        }
        let catalogName = name.qualifier[0]
        let options = FlinkDialect.icebergOptions(catalog: session.catalogs[catalogName] ?? [:], database: name.qualifier[1], table: name.name)
        var withOptions = options.keys.sorted().map { WithOption(key: $0, value: .string(options[$0] ?? "")) }
        withOptions.append(WithOption(key: "type", value: .string("append-only")))
        withOptions.append(WithOption(key: "create_table_if_not_exists", value: .string(creates ? "true" : "false")))
        if let interval = session.flinkCheckpointIntervalMilliseconds {
            // Flink's sink commits at each checkpoint, every `execution.checkpointing.interval`;
            // Sluice checkpoints more often, so the sink commits every so many of them.
            let checkpoints = FlinkDialect.checkpointsPerCommit(interval: interval, checkpointMilliseconds: session.checkpointMilliseconds)
            withOptions.append(WithOption(key: "commit_checkpoint_interval", value: .string(String(checkpoints))))
        }
        let job = ObjectName("insert-into_\(catalogName).\(name.qualifier[1]).\(name.name)")
        let sink = CreateSink(name: job, input: .query(query), options: withOptions)
        return try bindCreateSink(sink, sourceText: Statement(.createSink(sink)).description)
    }
}
