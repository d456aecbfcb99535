/// Every system table, by schema: the one list ``SystemCatalog`` looks names up in.
///
/// Adding a table is one file under `Tables/<schema>/`, named as the ``SystemTable`` it
/// declares: `all` is written at build time from those files' names (`SystemTablesPlugin`),
/// and `SystemTablesTests` checks that each file declares the one table its name says.
enum SystemTables {}
