/// Every system table, by schema: the one list ``SystemCatalog`` looks names up in.
///
/// Adding a table is a file under `Tables/<schema>/` declaring a ``SystemTable`` and a line
/// here (Swift has no way to find a protocol's conformances without a build plugin);
/// `SystemTablesTests` fails when a file declares a table this list lacks.
enum SystemTables {
    static let all: [any SystemTable.Type] = [
        // pg_catalog
        PgAm.self, PgAttrdef.self, PgAttribute.self, PgAuthMembers.self, PgClass.self, PgCollation.self, PgConstraint.self,
        PgDatabase.self, PgDepend.self, PgDescription.self, PgEnum.self, PgEventTrigger.self, PgExtension.self,
        PgForeignTable.self, PgIndex.self, PgIndexes.self, PgInherits.self, PgMatviews.self, PgNamespace.self, PgOpclass.self,
        PgPartitionedTable.self, PgPolicy.self, PgProc.self, PgPublication.self, PgPublicationRel.self, PgRewrite.self,
        PgRoles.self, PgSequence.self, PgSettings.self, PgShdescription.self, PgStatAllTables.self, PgStatisticExt.self,
        PgStatUserTables.self, PgTables.self, PgTablespace.self, PgTrigger.self, PgType.self, PgUser.self, PgViews.self,
        // information_schema
        InformationSchemaColumns.self, InformationSchemaKeyColumnUsage.self, InformationSchemaSchemata.self,
        InformationSchemaTableConstraints.self, InformationSchemaTables.self, InformationSchemaViews.self,
        // rw_catalog
        RwDdlProgress.self, RwFragments.self, RwMaterializedViews.self, RwSinks.self, RwSources.self,
        // Sluice's own
        SluiceCheckpoints.self, SluiceMemory.self, SluiceMemoryByOwner.self, SluiceSinks.self, SluiceSourceErrors.self,
        SluiceSources.self,
    ]
}
