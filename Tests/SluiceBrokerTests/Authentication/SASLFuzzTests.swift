import SluiceAuth
import SluiceCore
import Testing

@testable import SluiceBroker

/// Mutated SASL tokens (seeded, so a failure reproduces) must be answered, never trap: a
/// challenge, a login only for the token's own user, or a refusal that leaves the connection
/// with no principal.
@Suite struct SASLFuzzTests {
    static let users = FixedUserDirectory(
        verifiers: ["alice": SCRAMVerifier(password: "alice-secret", salt: Array("alice-salt".utf8), iterations: 4096)], superusers: [])

    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let position = random.next(below: bytes.count + 1)
        switch random.next(below: 5) {
        case 0 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 1:
            bytes.removeLast(bytes.count - position)
        case 2:
            // The bytes SASL messages are made of: separators, escapes and invalid UTF-8.
            let pieces: [[UInt8]] = [[0], [0x2C], [0x3D], Array("=2C".utf8), Array("=3".utf8), [0xFF], [0xC3], Array(",r=".utf8), Array(",p=".utf8)]
            bytes.insert(contentsOf: pieces[random.next(below: pieces.count)], at: position)
        case 3 where position < bytes.count:
            bytes.removeSubrange(position ..< min(bytes.count, position + 1 + random.next(below: 4)))
        default:
            bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: position)
        }
    }

    func check(_ outcome: SASLStateMachine.TokenOutcome, _ machine: SASLStateMachine) {
        switch outcome {
        case .challenge: #expect(machine.principal == nil)
        case .authenticated(_, let principal): #expect(principal == KafkaPrincipal(user: "alice") && machine.principal == principal)
        case .failed, .illegalState: #expect(machine.principal == nil && !machine.admits(.metadata))
        }
    }

    static func scramMachine() -> SASLStateMachine {
        var machine = SASLStateMachine(requirement: .required, mechanisms: [.scramSHA256], users: users, makeNonce: { "nonce" })
        _ = machine.handshakeReceived(mechanism: "SCRAM-SHA-256", version: 1)
        return machine
    }

    @Test func mutatedScramMessagesAreAnsweredNeverTrapped() throws {
        // The nonces are fixed, so one intact exchange gives the final message every intact
        // first message leads to (and the client's key is derived once).
        let client = SCRAMClient(user: "alice", password: "alice-secret")
        var intact = Self.scramMachine()
        guard case .challenge(let serverFirst) = intact.tokenReceived(client.clientFirst) else {
            Issue.record("no server-first-message")
            return
        }
        let intactFinal = try client.clientFinal(serverFirst: String(decoding: serverFirst, as: UTF8.self)).0
        var random = SplitMix64(seed: 0x5A51_C0DE)
        for _ in 0 ..< 5_000 {
            var machine = Self.scramMachine()
            var first = client.clientFirst
            let mutateFirst = random.next(below: 2) == 0
            if mutateFirst { Self.mutate(&first, using: &random) }
            let firstOutcome = machine.tokenReceived(first)
            check(firstOutcome, machine)
            guard case .challenge = firstOutcome else { continue }
            var final = intactFinal
            if mutateFirst || random.next(below: 2) == 0 { Self.mutate(&final, using: &random) }
            check(machine.tokenReceived(final), machine)
        }
    }

    @Test func mutatedPlainTokensAreAnsweredNeverTrapped() {
        var random = SplitMix64(seed: 0x91A1_17)
        for _ in 0 ..< 100 {
            var machine = SASLStateMachine(requirement: .required, mechanisms: [.plain], users: Self.users)
            _ = machine.handshakeReceived(mechanism: "PLAIN", version: 1)
            var token = [0] + Array("alice".utf8) + [0] + Array("alice-secret".utf8)
            Self.mutate(&token, using: &random)
            check(machine.tokenReceived(token), machine)
        }
    }
}
