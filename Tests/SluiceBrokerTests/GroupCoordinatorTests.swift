import Foundation
import NIOCore
import NIOEmbedded
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

private func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "sluice-groups-\(UUID().uuidString)"
}

/// Drives a coordinator on an embedded event loop, whose clock the test moves.
private struct Harness {
    let loop = EmbeddedEventLoop()
    let coordinator: GroupCoordinator
    let directory = temporaryDirectory()

    init() throws {
        coordinator = try GroupCoordinator(directory: directory, timers: loop)
    }

    func join(_ member: String, version: Int16 = 5, session: Int32 = 10_000) -> EventLoopFuture<JoinGroupResponse> {
        let request = JoinGroupRequest(
            groupID: "g", sessionTimeoutMs: session, rebalanceTimeoutMs: 5000, memberID: member, protocolType: "consumer",
            protocols: [.init(name: "range", metadata: ByteBuffer(string: "sub-\(member)"))])
        return coordinator.join(request, version: version, clientID: "client", clientHost: "/127.0.0.1", on: loop)
    }

    /// A new member's id, from the MEMBER_ID_REQUIRED round trip of JoinGroup v4+.
    func newMemberID() throws -> String {
        let first = try join("").wait()
        #expect(first.errorCode == KafkaErrorCode.memberIDRequired.rawValue)
        return first.memberID
    }

    func sync(_ member: String, generation: Int32, assignments: [String: String] = [:]) -> EventLoopFuture<SyncGroupResponse> {
        let request = SyncGroupRequest(
            groupID: "g", generationID: generation, memberID: member,
            assignments: assignments.map { .init(memberID: $0.key, assignment: ByteBuffer(string: $0.value)) })
        return coordinator.sync(request, on: loop)
    }

    func heartbeat(_ member: String, generation: Int32) -> Int16 {
        coordinator.heartbeat(HeartbeatRequest(groupID: "g", generationID: generation, memberID: member)).errorCode
    }
}

/// The value of a completed future, or nil while it is still waiting.
private func value<T>(_ future: EventLoopFuture<T>) -> T? {
    var result: T?
    future.whenSuccess { result = $0 }
    return result
}

@Suite struct GroupCoordinatorTests {
    @Test func twoMembersJoinSyncAndRebalanceWhenOneLeaves() throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        let a = try harness.newMemberID()
        let b = try harness.newMemberID()
        let joinA = harness.join(a)
        let joinB = harness.join(b)
        // The first generation waits briefly for more members of an empty group.
        #expect(value(joinA) == nil)
        harness.loop.advanceTime(by: .milliseconds(400))
        let responseA = try #require(value(joinA))
        let responseB = try #require(value(joinB))
        #expect(responseA.generationID == 1 && responseB.generationID == 1)
        #expect(responseA.leader == a && responseB.leader == a)
        #expect(responseA.protocolName == "range")
        #expect(Set(responseA.members.map(\.memberID)) == [a, b])
        #expect(responseB.members.isEmpty)

        // The follower's sync waits for the leader's assignment.
        let syncB = harness.sync(b, generation: 1)
        #expect(value(syncB) == nil)
        let syncA = harness.sync(a, generation: 1, assignments: [a: "p0", b: "p1"])
        #expect(try value(syncA).map { String(buffer: $0.assignment) } == "p0")
        #expect(try value(syncB).map { String(buffer: $0.assignment) } == "p1")
        #expect(harness.heartbeat(a, generation: 1) == 0)
        #expect(harness.heartbeat(a, generation: 0) == KafkaErrorCode.illegalGeneration.rawValue)
        #expect(harness.heartbeat("stranger", generation: 1) == KafkaErrorCode.unknownMemberID.rawValue)

        // B leaves: A is told to rejoin, and alone it completes generation 2 at once.
        let leave = harness.coordinator.leave(LeaveGroupRequest(groupID: "g", members: [.init(memberID: b)]))
        #expect(leave.errorCode == 0)
        #expect(harness.heartbeat(a, generation: 1) == KafkaErrorCode.rebalanceInProgress.rawValue)
        let rejoin = try #require(value(harness.join(a)))
        #expect(rejoin.generationID == 2)
        #expect(rejoin.members.map(\.memberID) == [a])
    }

    @Test func aSilentMemberIsRemovedAfterItsSessionTimeout() throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        let a = try harness.newMemberID()
        let b = try harness.newMemberID()
        let joinA = harness.join(a, session: 2000)
        let joinB = harness.join(b, session: 2000)
        harness.loop.advanceTime(by: .milliseconds(400))
        _ = try #require(value(joinA))
        _ = try #require(value(joinB))
        _ = harness.sync(a, generation: 1, assignments: [a: "x", b: "y"])
        // A keeps heartbeating; B goes silent.
        for _ in 0 ..< 3 {
            harness.loop.advanceTime(by: .milliseconds(500))
            #expect(harness.heartbeat(a, generation: 1) == 0)
        }
        // 2.1 s after B's last sign of life, the sweep removes it and A must rejoin.
        harness.loop.advanceTime(by: .milliseconds(600))
        #expect(harness.heartbeat(a, generation: 1) == KafkaErrorCode.rebalanceInProgress.rawValue)
        let description = try #require(harness.coordinator.describe("g"))
        #expect(description.members.map(\.id) == [a])
    }

    @Test func unknownMembersAndBadTimeoutsAreRefused() throws {
        let harness = try Harness()
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }
        #expect(try harness.join("made-up").wait().errorCode == KafkaErrorCode.unknownMemberID.rawValue)
        #expect(try harness.join("", session: 10).wait().errorCode == KafkaErrorCode.invalidSessionTimeout.rawValue)
        // JoinGroup v3 and older gets its member id at once.
        let old = harness.join("", version: 3)
        harness.loop.advanceTime(by: .milliseconds(400))
        let response = try #require(value(old))
        #expect(response.errorCode == 0 && !response.memberID.isEmpty && response.generationID == 1)
        #expect(try harness.sync("made-up", generation: 1).wait().errorCode == KafkaErrorCode.unknownMemberID.rawValue)
    }
}

@Suite struct OffsetStoreTests {
    @Test func offsetsSurviveReopeningAndATornTailIsCut() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let store = try OffsetStore(directory: directory)
            try store.commit(group: "g", [("t", 0, .init(offset: 5, metadata: nil)), ("t", 1, .init(offset: 7, metadata: "m"))])
            try store.commit(group: "g", [("t", 0, .init(offset: 9, metadata: nil))])
            try store.commit(group: "h", [("u", 3, .init(offset: 1, metadata: nil))])
        }
        let path = directory + "/__consumer_offsets.log"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes.append(contentsOf: [0, 0, 0, 40, 1, 2])  // a torn record
        try bytes.write(to: URL(fileURLWithPath: path))
        let store = try OffsetStore(directory: directory)
        #expect(store.offset(group: "g", topic: "t", partition: 0) == .init(offset: 9, metadata: nil))
        #expect(store.offset(group: "g", topic: "t", partition: 1) == .init(offset: 7, metadata: "m"))
        #expect(store.groups == ["g", "h"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == bytes.count - 6)
        // Many commits of one key are compacted away at the next start.
        for offset in 0 ..< 200 { try store.commit(group: "g", [("t", 0, .init(offset: Int64(offset), metadata: nil))]) }
        let sizeBefore = try Data(contentsOf: URL(fileURLWithPath: path)).count
        let reopened = try OffsetStore(directory: directory)
        #expect(reopened.offset(group: "g", topic: "t", partition: 0)?.offset == 199)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count < sizeBefore / 10)
    }
}
