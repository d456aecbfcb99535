import Foundation
import SluiceCore
import Testing
@testable import SluiceAuth

/// RFC 7677, section 3: the SCRAM-SHA-256 example exchange (user "user", password "pencil").
@Suite struct SCRAMServerExchangeTests {
    static let verifier = SCRAMVerifier(password: "pencil", salt: Base64.decode("W22ZaJ0SNY7soEsUEjb6gQ==")!, iterations: 4096)
    static let clientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    static let serverFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    static let clientFinal = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    static let serverFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="

    func exchange(verifier: SCRAMVerifier? = verifier) -> SCRAMServerExchange {
        SCRAMServerExchange(user: "user", verifier: verifier, serverNonce: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    }

    @Test func rfc7677Exchange() throws {
        var exchange = exchange()
        #expect(String(decoding: try exchange.receiveClientFirst(Array(Self.clientFirst.utf8)), as: UTF8.self) == Self.serverFirst)
        #expect(String(decoding: try exchange.receiveClientFinal(Array(Self.clientFinal.utf8)), as: UTF8.self) == Self.serverFinal)
    }

    @Test func wrongProofFailsWith28P01() throws {
        var exchange = exchange(verifier: SCRAMVerifier(password: "crayon", salt: Self.verifier.salt, iterations: 4096))
        _ = try exchange.receiveClientFirst(Array(Self.clientFirst.utf8))
        #expect(throws: SluiceError(.invalidPassword, "password authentication failed for user \"user\"")) {
            try exchange.receiveClientFinal(Array(Self.clientFinal.utf8))
        }
    }

    @Test func unknownUserGetsMockExchangeThenFails() throws {
        var exchange = exchange(verifier: nil)
        let serverFirst = String(decoding: try exchange.receiveClientFirst(Array(Self.clientFirst.utf8)), as: UTF8.self)
        #expect(serverFirst.hasPrefix("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s="))
        #expect(throws: SluiceError.self) { try exchange.receiveClientFinal(Array(Self.clientFinal.utf8)) }
    }

    @Test(arguments: ["", "n,,", "x,,n=user,r=abc", "p=tls-server-end-point,,n=user,r=abc", "n,a=admin,n=user,r=abc", "n,,n=user"])
    func malformedClientFirstIsRejected(message: String) {
        var exchange = exchange()
        #expect(throws: SluiceError.self) { try exchange.receiveClientFirst(Array(message.utf8)) }
    }

    @Test(arguments: [
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0",
        "c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        "c=biws,r=rOprNGfwEbeRWgbNEkqOother,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=!!!",
    ])
    func malformedClientFinalIsRejected(message: String) throws {
        var exchange = exchange()
        _ = try exchange.receiveClientFirst(Array(Self.clientFirst.utf8))
        #expect(throws: SluiceError.self) { try exchange.receiveClientFinal(Array(message.utf8)) }
    }
}

/// Exchanges whose user is the one the client-first-message names (Kafka's SCRAM), looked up in
/// a directory.
@Suite struct SCRAMServerExchangeLookupTests {
    static let nonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"

    func exchange(_ users: some UserDirectory) -> SCRAMServerExchange {
        SCRAMServerExchange(users: users, serverNonce: Self.nonce)
    }

    @Test func rfc7677ExchangeWithTheUserLookedUp() throws {
        var exchange = exchange(FixedUserDirectory(verifiers: ["user": SCRAMServerExchangeTests.verifier], superusers: ["user"]))
        #expect(exchange.user == "")
        let serverFirst = try exchange.receiveClientFirst(Array(SCRAMServerExchangeTests.clientFirst.utf8))
        #expect(String(decoding: serverFirst, as: UTF8.self) == SCRAMServerExchangeTests.serverFirst)
        #expect(exchange.user == "user")
        #expect(exchange.isSuperuser)
        let serverFinal = try exchange.receiveClientFinal(Array(SCRAMServerExchangeTests.clientFinal.utf8))
        #expect(String(decoding: serverFinal, as: UTF8.self) == SCRAMServerExchangeTests.serverFinal)
    }

    @Test func escapedNamesAreDecoded() throws {
        let verifier = SCRAMVerifier(password: "pencil", salt: [1, 2, 3, 4], iterations: 4096)
        var exchange = exchange(FixedUserDirectory(verifiers: ["a,b=c": verifier]))
        let serverFirst = try exchange.receiveClientFirst(Array("n,,n=a=2Cb=3Dc,r=abc".utf8))
        #expect(String(decoding: serverFirst, as: UTF8.self) == "r=abc\(Self.nonce),s=\(Base64.encode([1, 2, 3, 4])),i=4096")
        #expect(exchange.user == "a,b=c")
        #expect(!exchange.isSuperuser)
        #expect(SCRAMServerExchange.saslName("plain") == "plain")
        #expect(SCRAMServerExchange.saslName("=3D=2C") == "=,")
    }

    @Test(arguments: ["n,,n=a=2Xb,r=abc", "n,,n=a=,r=abc", "n,,n=,r=abc", "n,,n=user,r=abc,tokenauth=true", "n,a=other,n=user,r=abc"])
    func refusedClientFirstMessages(message: String) {
        var exchange = exchange(FixedUserDirectory(verifiers: ["user": SCRAMServerExchangeTests.verifier]))
        #expect(throws: SluiceError.self) { try exchange.receiveClientFirst(Array(message.utf8)) }
    }

    @Test func otherExtensionsAndARepeatedAuthorizationIdentityAreAccepted() throws {
        var withExtension = exchange(FixedUserDirectory(verifiers: ["user": SCRAMServerExchangeTests.verifier]))
        _ = try withExtension.receiveClientFirst(Array("n,,n=user,r=abc,tokenauth=false,x=1".utf8))
        var withIdentity = exchange(FixedUserDirectory(verifiers: ["user": SCRAMServerExchangeTests.verifier]))
        _ = try withIdentity.receiveClientFirst(Array("n,a=user,n=user,r=abc".utf8))
        #expect(withIdentity.user == "user")
    }

    /// librdkafka repeats its nonce in front of the server's in the client-final-message; Kafka
    /// accepts that, so exchanges with a directory do (the proof then decides), and Postgres's
    /// exchanges do not.
    @Test func aRepeatedClientNonceIsAcceptedOnlyInKafkasExchanges() throws {
        let repeated = SCRAMServerExchangeTests.clientFinal.replacingOccurrences(of: "r=rOprNGfwEbeRWgbNEkqO", with: "r=rOprNGfwEbeRWgbNEkqOrOprNGfwEbeRWgbNEkqO")
        var kafka = exchange(FixedUserDirectory(verifiers: ["user": SCRAMServerExchangeTests.verifier]))
        _ = try kafka.receiveClientFirst(Array(SCRAMServerExchangeTests.clientFirst.utf8))
        let kafkaError = #expect(throws: SluiceError.self) { try kafka.receiveClientFinal(Array(repeated.utf8)) }
        #expect(kafkaError?.code == .invalidPassword)
        var postgres = SCRAMServerExchangeTests().exchange()
        _ = try postgres.receiveClientFirst(Array(SCRAMServerExchangeTests.clientFirst.utf8))
        let postgresError = #expect(throws: SluiceError.self) { try postgres.receiveClientFinal(Array(repeated.utf8)) }
        #expect(postgresError?.code == .protocolViolation)
    }

    /// An unknown user and a user who may not log in look like a user with another password: a
    /// salt that stays the same from one attempt to the next, and failure only at the proof, with
    /// the same error as a wrong password.
    @Test func unknownAndNotPermittedUsersGetAStableMockExchange() throws {
        struct Directory: UserDirectory {
            func login(_ user: String) -> UserLogin {
                user == "reader" ? .notPermitted : .unknown
            }
        }
        func serverFirst(_ name: String) throws -> String {
            var exchange = exchange(Directory())
            return String(decoding: try exchange.receiveClientFirst(Array("n,,n=\(name),r=abc".utf8)), as: UTF8.self)
        }
        #expect(try serverFirst("mallory") == serverFirst("mallory"))
        #expect(try serverFirst("mallory") != serverFirst("eve"))
        #expect(try serverFirst("reader").hasSuffix(",i=4096"))
        for name in ["user", "reader"] {
            var exchange = exchange(Directory())
            _ = try exchange.receiveClientFirst(Array("n,,n=\(name),r=rOprNGfwEbeRWgbNEkqO".utf8))
            #expect(throws: SluiceError(.invalidPassword, "password authentication failed for user \"\(name)\"")) {
                try exchange.receiveClientFinal(Array(SCRAMServerExchangeTests.clientFinal.utf8))
            }
        }
    }
}

@Suite struct UserDirectoryTests {
    @Test func fixedDirectoryKnowsItsUsersAndSuperusers() {
        let directory = FixedUserDirectory(passwords: ["alice": "a", "admin": "b"], superusers: ["admin"])
        guard case .allowed(let verifier?, false) = directory.login("alice") else {
            Issue.record("alice should be an ordinary user with a verifier")
            return
        }
        #expect(verifier.matches(password: "a"))
        #expect(!verifier.matches(password: "b"))
        guard case .allowed(_, true) = directory.login("admin") else {
            Issue.record("admin should be a superuser")
            return
        }
        #expect(directory.login("bob") == .unknown)
        #expect(AnyUserDirectory().login("anyone") == .allowed(verifier: nil, superuser: false))
    }
}
