import SluiceCore
import Testing

@testable import SluiceSQL

/// `SQLParser.maskingSecrets(in:)`: secret option values become `[REDACTED]`, and every other
/// byte of the statement stays as written.
@Suite struct SQLParserSecretsTests {
    @Test func masksAKafkaSourcesSASLPassword() {
        let sql = """
            CREATE SOURCE s (a int, b varchar) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'localhost:9092', \
            properties.security.protocol = 'SASL_PLAINTEXT', properties.sasl.mechanism = 'PLAIN', properties.sasl.username = 'svc', \
            properties.sasl.password = 'hunter2-secret', properties.ssl.key.password = 'k3y') FORMAT PLAIN ENCODE JSON
            """
        #expect(SQLParser.maskingSecrets(in: sql) == """
            CREATE SOURCE s (a int, b varchar) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'localhost:9092', \
            properties.security.protocol = 'SASL_PLAINTEXT', properties.sasl.mechanism = 'PLAIN', properties.sasl.username = 'svc', \
            properties.sasl.password = [REDACTED], properties.ssl.key.password = [REDACTED]) FORMAT PLAIN ENCODE JSON
            """)
    }

    @Test func masksValuesWithEscapesWhole() {
        #expect(SQLParser.maskingSecrets(in: "CREATE SINK k FROM m WITH (connector = 'blackhole', password = 'a''b''c')")
            == "CREATE SINK k FROM m WITH (connector = 'blackhole', password = [REDACTED])")
        #expect(SQLParser.maskingSecrets(in: #"CREATE SINK k FROM m WITH (connector = 'blackhole', password = E'a\'b\\', x = 'y')"#)
            == "CREATE SINK k FROM m WITH (connector = 'blackhole', password = [REDACTED], x = 'y')")
        #expect(SQLParser.maskingSecrets(in: "CREATE SINK k FROM m WITH (token = $tag$it's $$ all$tag$, x = 'y')")
            == "CREATE SINK k FROM m WITH (token = [REDACTED], x = 'y')")
        #expect(SQLParser.maskingSecrets(in: "CREATE SINK k FROM m WITH (token = 12345, secret = -7.5, x = 1)")
            == "CREATE SINK k FROM m WITH (token = [REDACTED], secret = [REDACTED], x = 1)")
    }

    @Test func masksQuotedAndMixedCaseKeys() {
        let sql = """
            CREATE TABLE t (a int) WITH ('connector' = 'kafka', 'properties.sasl.password' = 'one', "properties.ssl.keystore.password" = 'two', \
            "Properties"."SASL"."Password" = 'three', PROPERTIES.SSL.TRUSTSTORE.PASSWORD = 'four', Topic = 'Secret') FORMAT PLAIN ENCODE JSON
            """
        #expect(SQLParser.maskingSecrets(in: sql) == """
            CREATE TABLE t (a int) WITH ('connector' = 'kafka', 'properties.sasl.password' = [REDACTED], "properties.ssl.keystore.password" = [REDACTED], \
            "Properties"."SASL"."Password" = [REDACTED], PROPERTIES.SSL.TRUSTSTORE.PASSWORD = [REDACTED], Topic = 'Secret') FORMAT PLAIN ENCODE JSON
            """)
    }

    @Test func masksTheOptionsAfterEncode() {
        let sql = """
            CREATE SOURCE s (a int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'b:9092') \
            FORMAT PLAIN ENCODE AVRO (schema.registry = 'http://registry:8081', schema.registry.username = 'reg', schema.registry.password = 'reg-pass')
            """
        #expect(SQLParser.maskingSecrets(in: sql) == """
            CREATE SOURCE s (a int) WITH (connector = 'kafka', topic = 't', properties.bootstrap.server = 'b:9092') \
            FORMAT PLAIN ENCODE AVRO (schema.registry = 'http://registry:8081', schema.registry.username = 'reg', schema.registry.password = [REDACTED])
            """)
    }

    @Test func masksAnIcebergSinksCredentialsAndURLPasswordsOnly() {
        let sql = """
            CREATE SINK lake FROM totals WITH (connector = 'iceberg', type = 'upsert', primary_key = 'player', database.name = 'db', \
            table.name = 'totals', catalog.type = 'rest', catalog.uri = 'http://svc:url''pass@catalog:8181/api/catalog', \
            catalog.credential = 'root:secret', catalog.token = 'tok', s3.endpoint = 'http://minio:9000', s3.access.key = 'AKIA', \
            s3.secret.key = 'wJalr', s3.region = 'us-east-1')
            """
        #expect(SQLParser.maskingSecrets(in: sql) == """
            CREATE SINK lake FROM totals WITH (connector = 'iceberg', type = 'upsert', primary_key = 'player', database.name = 'db', \
            table.name = 'totals', catalog.type = 'rest', catalog.uri = 'http://svc:[REDACTED]@catalog:8181/api/catalog', \
            catalog.credential = [REDACTED], catalog.token = [REDACTED], s3.endpoint = 'http://minio:9000', s3.access.key = [REDACTED], \
            s3.secret.key = [REDACTED], s3.region = 'us-east-1')
            """)
    }

    @Test func keepsCommentsSpacingAndEverythingElse() throws {
        let sql = """
            create   source S (password varchar)  -- the password column stays
            with (
              connector='kafka',  /* a comment */ PASSWORD='x'  ,
              topic = 'password = ''y'''
            ) format plain encode json;
            """
        _ = try SQLParser.parse(sql)  // (masked as parsed, not by the tokens alone)
        #expect(SQLParser.maskingSecrets(in: sql) == """
            create   source S (password varchar)  -- the password column stays
            with (
              connector='kafka',  /* a comment */ PASSWORD=[REDACTED]  ,
              topic = 'password = ''y'''
            ) format plain encode json;
            """)
    }

    @Test func leavesQueriesAndSecretReferencesAlone() {
        for sql in [
            "CREATE MATERIALIZED VIEW v AS SELECT * FROM users WHERE password = 'hunter2' AND token = 'x'",
            "CREATE VIEW v AS SELECT 'password' AS label, 'token' = 'token' AS same",
            "CREATE SOURCE s (a int) WITH (connector = 'mysql-cdc', password = secret mysql_pwd) FORMAT PLAIN ENCODE JSON",
            "CREATE TABLE t (a int PRIMARY KEY, secret_key varchar)",
            "SELECT 1",
        ] {
            #expect(SQLParser.maskingSecrets(in: sql) == sql)
        }
    }

    @Test func masksTheOptionsOfEveryStatement() {
        #expect(SQLParser.maskingSecrets(in: "CREATE SINK a FROM m WITH (password = 'p1'); CREATE SINK b FROM m WITH (password = 'p2')")
            == "CREATE SINK a FROM m WITH (password = [REDACTED]); CREATE SINK b FROM m WITH (password = [REDACTED])")
    }

    @Test func masksTextThatDoesNotParseByItsTokens() {
        #expect(SQLParser.maskingSecrets(in: "CREATE SOURCE s WITH (properties.sasl.password = 'pw', uri = 'http://u:p@h/') GARBAGE (")
            == "CREATE SOURCE s WITH (properties.sasl.password = [REDACTED], uri = 'http://u:[REDACTED]@h/') GARBAGE (")
        // Not even tokens: nothing of it is shown.
        #expect(SQLParser.maskingSecrets(in: "CREATE SOURCE s WITH (password = 'unterminated") == SecretOptions.mask)
    }
}
