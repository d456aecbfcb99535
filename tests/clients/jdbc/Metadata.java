// Reads a database's catalog through pgjdbc's DatabaseMetaData, as DBeaver and other JDBC tools
// do when they connect, and runs prepared statements. tests/e2e/test_jdbc.py compiles and runs
// it against Sluice and against PostgreSQL and compares what it prints.
//
// Usage: java -cp postgresql.jar:. Metadata JDBC_URL TABLE VIEW
// where TABLE has been created by the caller as
//   (id int PRIMARY KEY, name varchar NOT NULL, price numeric(10,2), qty bigint, ratio double precision,
//    ok boolean, born date, seen timestamp, stamped timestamptz)
// and VIEW is a materialized view over it. Each printed line is a section name and its fields,
// tab-separated; NULL is printed as \N. A section that fails prints `error`, its name and the
// message, and the program goes on with the next one (the connection is in autocommit mode).

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

public final class Metadata {
    private Metadata() {}

    /** One step that may fail with an SQLException. */
    private interface Section {
        void run() throws SQLException;
    }

    public static void main(String[] args) throws SQLException {
        if (args.length != 3) {
            System.err.println("usage: Metadata JDBC_URL TABLE VIEW");
            System.exit(2);
        }
        String url = args[0];
        String table = args[1];
        String view = args[2];
        try (Connection connection = DriverManager.getConnection(url)) {
            DatabaseMetaData metadata = connection.getMetaData();
            section("product", () -> print("product", metadata.getDatabaseProductName()));
            section("driver", () -> print("driver", metadata.getDriverName()));
            section("user", () -> print("user", metadata.getUserName()));
            section("quote", () -> print("quote", metadata.getIdentifierQuoteString()));
            section("terms", () -> print("terms", metadata.getCatalogTerm(), metadata.getSchemaTerm()));
            section("connection", () -> print("connection", connection.getSchema(), String.valueOf(connection.getAutoCommit())));
            section("schema", () -> printRows("schema", metadata.getSchemas(), "TABLE_SCHEM"));
            section("table_type", () -> printRows("table_type", metadata.getTableTypes(), "TABLE_TYPE"));
            section("table", () -> printRows("table", metadata.getTables(null, "public", "%", null),
                "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
            section("table_by_name", () -> printRows("table_by_name", metadata.getTables(null, null, table, new String[] {"TABLE"}),
                "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
            section("view_by_name", () -> printRows("view_by_name",
                metadata.getTables(null, null, view, new String[] {"MATERIALIZED VIEW"}), "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE"));
            for (String relation : new String[] {table, view}) {
                section("column", () -> printRows("column", metadata.getColumns(null, "public", relation, "%"),
                    "TABLE_NAME", "COLUMN_NAME", "ORDINAL_POSITION", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS",
                    "NUM_PREC_RADIX", "NULLABLE", "IS_NULLABLE", "COLUMN_DEF", "IS_AUTOINCREMENT", "IS_GENERATEDCOLUMN"));
            }
            section("primary_key", () -> printRows("primary_key", metadata.getPrimaryKeys(null, "public", table),
                "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
            section("index", () -> printRows("index", metadata.getIndexInfo(null, "public", table, false, false),
                "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "TYPE", "ORDINAL_POSITION", "COLUMN_NAME", "ASC_OR_DESC"));
            section("imported_key", () -> printRows("imported_key", metadata.getImportedKeys(null, "public", table),
                "PKTABLE_NAME", "FKCOLUMN_NAME"));
            section("exported_key", () -> printRows("exported_key", metadata.getExportedKeys(null, "public", table),
                "FKTABLE_NAME", "FKCOLUMN_NAME"));
            section("type_info", () -> printRows("type_info", metadata.getTypeInfo(),
                "TYPE_NAME", "DATA_TYPE", "PRECISION", "NULLABLE", "CASE_SENSITIVE", "SEARCHABLE"));
            section("insert", () -> {
                try (Statement statement = connection.createStatement()) {
                    print("insert_count", String.valueOf(statement.executeUpdate("INSERT INTO " + table
                        + " VALUES (1, 'pen', 1.50, 10, 0.5, true, DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00',"
                        + " TIMESTAMPTZ '2024-01-01 10:00:00+00')")));
                }
            });
            section("prepared_insert", () -> {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + table + " (id, name, price, qty) VALUES (?, ?, ?, ?)")) {
                    insert.setInt(1, 2);
                    insert.setString(2, "ink");
                    insert.setBigDecimal(3, new BigDecimal("3.25"));
                    insert.setLong(4, 20L);
                    print("insert_count", String.valueOf(insert.executeUpdate()));
                }
            });
            section("prepared_select", () -> {
                try (PreparedStatement select = connection.prepareStatement(
                        "SELECT id, name, price, qty, ratio, ok, born FROM " + table + " WHERE id >= ? AND name <> ? ORDER BY id")) {
                    // More runs than prepareThreshold (5): pgjdbc moves to a named server-side
                    // statement after that.
                    for (int run = 0; run < 6; run++) {
                        select.setInt(1, 1);
                        select.setString(2, "none");
                        try (ResultSet rows = select.executeQuery()) {
                            if (run == 0) {
                                printResultMetadata(rows.getMetaData());
                            }
                            while (rows.next()) {
                                print(run == 5 ? "row_named" : "row", rows.getString(1), rows.getString(2),
                                    String.valueOf(rows.getBigDecimal(3)), String.valueOf(rows.getLong(4)), rows.getString(5),
                                    rows.getString(6), rows.getString(7));
                            }
                        }
                    }
                }
            });
        }
    }

    private static void section(String name, Section section) {
        try {
            section.run();
        } catch (SQLException error) {
            print("error", name, String.valueOf(error.getMessage()).split("\n")[0]);
        }
    }

    private static void printResultMetadata(ResultSetMetaData metadata) throws SQLException {
        for (int index = 1; index <= metadata.getColumnCount(); index++) {
            print("result_column", metadata.getColumnName(index), metadata.getColumnLabel(index),
                String.valueOf(metadata.getColumnType(index)), metadata.getColumnTypeName(index),
                String.valueOf(metadata.getPrecision(index)), String.valueOf(metadata.getScale(index)),
                String.valueOf(metadata.isNullable(index)), metadata.getTableName(index), metadata.getSchemaName(index),
                String.valueOf(metadata.isAutoIncrement(index)), metadata.getColumnClassName(index));
        }
    }

    private static void printRows(String section, ResultSet rows, String... columns) throws SQLException {
        try (rows) {
            while (rows.next()) {
                List<String> values = new ArrayList<>();
                for (String column : columns) {
                    values.add(rows.getString(column));
                }
                print(section, values.toArray(new String[0]));
            }
        }
    }

    private static void print(String section, String... values) {
        StringBuilder line = new StringBuilder(section);
        for (String value : values) {
            line.append('\t').append(value == null ? "\\N" : value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n"));
        }
        System.out.println(line);
    }
}
