import SluiceCore
import Testing
@testable import SluicePGWire

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
