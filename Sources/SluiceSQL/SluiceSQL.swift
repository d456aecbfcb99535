// SluiceSQL: the SQL front end — lexer, recursive-descent parser and AST for the
// RisingWave/PostgreSQL dialect (with Flink SQL's table DDL accepted too).
//
// - `Lexer/`: `Lexer` turns UTF-8 bytes into `Token`s with byte offsets and character positions.
// - `Parser/`: `Parser` and its extensions, one per grammar area; depth-limited recursion.
// - `AST/`: value types (`Statement`, `Query`, `Select`, `TableReference`, `Expression`,
//   `TypeName`, …); positions never affect equality.
// - `Printing/`: `description` prints any node back as SQL that parses to an equal node.
// - `SQLParser` is the entry point; `SQLFuzz` the fuzzing hook; `SQLParser+Secrets` masks the
//   values of secret options in a statement's text, as SHOW CREATE and the system tables show it.
