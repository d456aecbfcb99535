import Testing

@testable import SluiceCore

@Suite struct SecretOptionsTests {
    @Test(arguments: [
        "properties.sasl.password", "properties.ssl.key.password", "properties.ssl.keystore.password",
        "properties.ssl.truststore.password", "properties.sasl.jaas.config", "properties.sasl.oauthbearer.config",
        "properties.sasl.oauthbearer.client.secret", "schema.registry.password", "catalog.credential", "catalog.token",
        "s3.access.key", "s3.secret.key", "aws.credentials.secret_access_key", "aws.credentials.session_token", "password",
        "database.password", "Properties.SASL.Password", "S3.SECRET.KEY", "gcs.private_key",
    ])
    func secretKeys(key: String) {
        #expect(SecretOptions.isSecret(key))
    }

    @Test(arguments: [
        "connector", "topic", "properties.bootstrap.server", "properties.sasl.username", "properties.sasl.mechanism",
        "properties.security.protocol", "catalog.uri", "catalog.type", "database.name", "table.name", "s3.endpoint", "s3.region",
        "primary_key", "PRIMARY_KEY", "type", "scan.startup.mode", "username", "hostname",
    ])
    func plainKeys(key: String) {
        #expect(!SecretOptions.isSecret(key))
    }

    @Test func secretValuesAreTheSecretOptionsAndURLPasswordsLongestFirst() {
        let values = SecretOptions.secretValues(
            of: ["connector": "iceberg", "catalog.credential": "svc:longer-secret", "s3.secret.key": "abcd", "catalog.uri": "http://u:url-pass@h/api",
                 "token": "abc", "primary_key": "identifier"],
            ["schema.registry.password": "registry-pw"])
        // `abc` is too short to search for in free text; the primary key is no secret.
        #expect(values == ["svc:longer-secret", "registry-pw", "url-pass", "abcd"])
    }

    @Test func maskingSecretsInTextReplacesEveryOccurrenceAndURLPasswords() {
        let text = "auth failed for svc:hunter22 (hunter22) at http://bob:pw@host:1/x, see https://tok@api.example.com/"
        #expect(SecretOptions.maskingSecrets(in: text, values: ["svc:hunter22", "hunter22", "abc"])
            == "auth failed for [REDACTED] ([REDACTED]) at http://bob:[REDACTED]@host:1/x, see https://[REDACTED]@api.example.com/")
        #expect(SecretOptions.maskingSecrets(in: "nothing secret here", values: ["hunter22"]) == "nothing secret here")
    }

    @Test func errorsAreMaskedInEveryText() {
        var error = SluiceError(.ioError, "could not log in as svc with hunter22", detail: "hunter22 was refused", hint: "check hunter22")
        error.context = "line hunter22"
        let masked = error.maskingSecrets(["hunter22"])
        #expect(masked.message == "could not log in as svc with [REDACTED]")
        #expect(masked.detail == "[REDACTED] was refused")
        #expect(masked.hint == "check [REDACTED]")
        #expect(masked.context == "line [REDACTED]")
        #expect(masked.code == .ioError)
    }
}

@Suite struct URLCredentialsTests {
    @Test func masksThePasswordAndKeepsTheUser() {
        #expect(URLCredentials.masking(in: "http://user:pass@host:8181/api/catalog") == "http://user:[REDACTED]@host:8181/api/catalog")
        #expect(URLCredentials.masking(in: "s3://AKIA123:s3cr3t@bucket/prefix") == "s3://AKIA123:[REDACTED]@bucket/prefix")
    }

    @Test func masksAUserinfoWithoutAColonWhole() {
        #expect(URLCredentials.masking(in: "https://ghp_token@github.com/o/r") == "https://[REDACTED]@github.com/o/r")
    }

    @Test func anAtSignInThePasswordIsPartOfIt() {
        #expect(URLCredentials.masking(in: "http://u:p@ss@host/") == "http://u:[REDACTED]@host/")
    }

    @Test func masksAPasswordQueryParameterAsJDBCURLsCarryIt() {
        #expect(URLCredentials.masking(in: "jdbc:postgresql://pg:5432/mydb?user=myuser&password=123456")
            == "jdbc:postgresql://pg:5432/mydb?user=myuser&password=[REDACTED]")
        #expect(URLCredentials.masking(in: "jdbc:postgresql://pg/db?PASSWORD=s3cret&ssl=true")
            == "jdbc:postgresql://pg/db?PASSWORD=[REDACTED]&ssl=true")
        #expect(URLCredentials.masking(in: "url 'jdbc:postgresql://h/d?password=pw1' and http://u:pw2@h2/x?password=pw3")
            == "url 'jdbc:postgresql://h/d?password=[REDACTED]' and http://u:[REDACTED]@h2/x?password=[REDACTED]")
        // A parameter that only ends in "password" is not one.
        #expect(URLCredentials.masking(in: "http://h/x?oldpassword=a&passwordx=b") == "http://h/x?oldpassword=a&passwordx=b")
    }

    @Test func leavesURLsWithoutCredentialsAlone() {
        for text in ["http://host:8181/api", "see http://host/path@version for it", "no url", "mailto:someone@example.com", "a://@host", ""] {
            #expect(URLCredentials.masking(in: text) == text)
        }
    }

    @Test func inProseQuotesEndTheURL() {
        #expect(URLCredentials.masking(in: "request 'http://u:pw@h/x' failed, (http://v:pw2@h2)")
            == "request 'http://u:[REDACTED]@h/x' failed, (http://v:[REDACTED]@h2)")
        // A value alone may have quotes in its password.
        #expect(URLCredentials.masking(in: "http://u:it's@h/x", inProse: false) == "http://u:[REDACTED]@h/x")
        #expect(URLCredentials.secrets(in: "http://u:it's@h/x", inProse: false) == ["it's"])
    }
}
