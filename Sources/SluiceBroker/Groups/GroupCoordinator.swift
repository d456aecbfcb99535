import Foundation
import NIOCore
import SluiceKafkaProtocol

/// The consumer-group coordinator: Kafka's classic group protocol, for every group, on this
/// one broker.
///
/// A group moves Empty → PreparingRebalance → CompletingRebalance → Stable. A join (or a member
/// leaving or timing out) starts a rebalance; JoinGroup answers wait until every known member
/// has joined again (or the rebalance timeout ends, dropping those that did not), then the
/// generation goes up, one member leads, and the leader's SyncGroup hands out the assignment the
/// leader computed (the broker passes the range/roundrobin/sticky assignors' bytes through).
/// Heartbeats keep members alive; one silent for its session timeout is removed. New members
/// of JoinGroup v4+ first get MEMBER_ID_REQUIRED with an id to join with (KIP-394).
///
/// Thread-safe: one lock; answers that wait are promises completed from whichever thread ends
/// the wait, and timers run on one event loop.
final class GroupCoordinator: @unchecked Sendable {
    enum State: String {
        case empty = "Empty"
        case preparingRebalance = "PreparingRebalance"
        case completingRebalance = "CompletingRebalance"
        case stable = "Stable"
    }

    final class Member {
        let id: String
        var clientID: String
        var clientHost: String
        var sessionTimeout: TimeAmount
        var rebalanceTimeout: TimeAmount
        var protocols: [(name: String, metadata: ByteBuffer)]
        var assignment = ByteBuffer()
        var lastHeartbeat: NIODeadline
        var join: EventLoopPromise<JoinGroupResponse>?
        var sync: EventLoopPromise<SyncGroupResponse>?

        init(
            id: String, clientID: String, clientHost: String, sessionTimeout: TimeAmount, rebalanceTimeout: TimeAmount,
            protocols: [(String, ByteBuffer)], now: NIODeadline
        ) {
            self.id = id
            self.lastHeartbeat = now
            self.clientID = clientID
            self.clientHost = clientHost
            self.sessionTimeout = sessionTimeout
            self.rebalanceTimeout = rebalanceTimeout
            self.protocols = protocols
        }
    }

    final class Group {
        let id: String
        var state = State.empty
        var generation: Int32 = 0
        var protocolType: String?
        var protocolName: String?
        var leader: String?
        /// Members in the order they first joined.
        var members: [Member] = []
        /// Ids handed out with MEMBER_ID_REQUIRED, not yet used to join.
        var pendingIDs: Set<String> = []
        /// Bumped whenever a rebalance starts, so a stale timer does nothing.
        var rebalanceRound = 0
        /// Set while the first members of an empty group may still arrive.
        var initialDelay = false

        init(id: String) {
            self.id = id
        }

        func member(_ id: String) -> Member? { members.first { $0.id == id } }
    }

    /// How long an empty group waits for more members before its first generation (Kafka's
    /// `group.initial.rebalance.delay.ms`, shortened: clients start within milliseconds).
    static let initialRebalanceDelay = TimeAmount.milliseconds(300)
    static let sessionTimeoutRange = 1000 ... 1_800_000

    private let lock = NSLock()
    private var groups: [String: Group] = [:]
    let offsets: OffsetStore
    private let timers: any EventLoop

    init(directory: String, timers: any EventLoop) throws {
        offsets = try OffsetStore(directory: directory)
        self.timers = timers
        scheduleSweep()
    }

    // MARK: JoinGroup

    func join(_ request: JoinGroupRequest, version: Int16, clientID: String, clientHost: String, on eventLoop: any EventLoop) -> EventLoopFuture<JoinGroupResponse> {
        func fail(_ code: KafkaErrorCode, memberID: String = "") -> EventLoopFuture<JoinGroupResponse> {
            eventLoop.makeSucceededFuture(JoinGroupResponse(errorCode: code.rawValue, protocolName: nil, leader: "", memberID: memberID))
        }
        guard !request.groupID.isEmpty else { return fail(.invalidGroupID) }
        guard Self.sessionTimeoutRange.contains(Int(request.sessionTimeoutMs)) else { return fail(.invalidSessionTimeout) }
        guard !request.protocols.isEmpty, !request.protocolType.isEmpty else { return fail(.inconsistentGroupProtocol) }
        lock.lock()
        defer { lock.unlock() }
        let group = groups[request.groupID] ?? Group(id: request.groupID)
        groups[request.groupID] = group
        if !group.members.isEmpty {
            let shared = Set(group.members.flatMap { $0.protocols.map(\.name) })
            if group.protocolType != request.protocolType || !request.protocols.contains(where: { shared.contains($0.name) }) {
                return fail(.inconsistentGroupProtocol)
            }
        }
        var memberID = request.memberID
        if memberID.isEmpty {
            memberID = "\(clientID.isEmpty ? "member" : clientID)-\(UUID().uuidString.lowercased())"
            if version >= 4 {
                group.pendingIDs.insert(memberID)
                return fail(.memberIDRequired, memberID: memberID)
            }
        } else if group.member(memberID) == nil && !group.pendingIDs.contains(memberID) {
            return fail(.unknownMemberID, memberID: memberID)
        }
        group.pendingIDs.remove(memberID)
        let protocols = request.protocols.map { ($0.name, $0.metadata) }
        let rebalanceTimeout = TimeAmount.milliseconds(Int64(request.rebalanceTimeoutMs > 0 ? request.rebalanceTimeoutMs : request.sessionTimeoutMs))
        let member: Member
        if let existing = group.member(memberID) {
            member = existing
            member.protocols = protocols
            member.sessionTimeout = .milliseconds(Int64(request.sessionTimeoutMs))
            member.rebalanceTimeout = rebalanceTimeout
        } else {
            member = Member(
                id: memberID, clientID: clientID, clientHost: clientHost, sessionTimeout: .milliseconds(Int64(request.sessionTimeoutMs)),
                rebalanceTimeout: rebalanceTimeout, protocols: protocols, now: timers.now)
            group.members.append(member)
        }
        group.protocolType = request.protocolType
        member.lastHeartbeat = timers.now
        let promise = eventLoop.makePromise(of: JoinGroupResponse.self)
        member.join?.succeed(Self.joinError(.rebalanceInProgress, member: memberID))
        member.join = promise
        if group.state != .preparingRebalance { prepareRebalance(group) }
        tryCompleteJoin(group)
        return promise.futureResult
    }

    /// Starts a rebalance: members must join again. Called with the lock held.
    private func prepareRebalance(_ group: Group) {
        for member in group.members {
            member.sync?.succeed(SyncGroupResponse(errorCode: KafkaErrorCode.rebalanceInProgress.rawValue, assignment: ByteBuffer()))
            member.sync = nil
        }
        let wasEmpty = group.state == .empty
        group.state = .preparingRebalance
        group.rebalanceRound += 1
        let round = group.rebalanceRound
        let wait: TimeAmount
        if wasEmpty {
            group.initialDelay = true
            wait = Self.initialRebalanceDelay
        } else {
            wait = group.members.map(\.rebalanceTimeout).max() ?? .seconds(1)
        }
        timers.scheduleTask(in: wait) { [self] in
            lock.lock()
            defer { lock.unlock() }
            guard group.rebalanceRound == round, group.state == .preparingRebalance else { return }
            group.initialDelay = false
            completeJoin(group)
        }
    }

    /// Completes the rebalance once every member has joined again. Called with the lock held.
    private func tryCompleteJoin(_ group: Group) {
        guard group.state == .preparingRebalance, !group.initialDelay, group.members.allSatisfy({ $0.join != nil }) else { return }
        completeJoin(group)
    }

    /// Ends the join phase: drops members that did not join, moves to the next generation and
    /// answers every waiting JoinGroup. Called with the lock held.
    private func completeJoin(_ group: Group) {
        group.members.removeAll { $0.join == nil }
        group.generation += 1
        guard !group.members.isEmpty else {
            group.state = .empty
            group.protocolName = nil
            group.leader = nil
            return
        }
        // The protocol every member supports that most members list first (Kafka's vote).
        let candidates = group.members.dropFirst().reduce(Set(group.members[0].protocols.map(\.name))) { $0.intersection($1.protocols.map(\.name)) }
        var votes: [String: Int] = [:]
        for member in group.members {
            if let choice = member.protocols.first(where: { candidates.contains($0.name) }) { votes[choice.name, default: 0] += 1 }
        }
        let chosen = group.members[0].protocols.map(\.name).filter { candidates.contains($0) }.max { votes[$0, default: 0] < votes[$1, default: 0] }
        group.protocolName = chosen
        if group.leader == nil || group.member(group.leader!) == nil { group.leader = group.members[0].id }
        group.state = .completingRebalance
        let leader = group.leader!
        for member in group.members {
            guard let promise = member.join else { continue }
            member.join = nil
            member.lastHeartbeat = timers.now
            let subscriptions = member.id == leader
                ? group.members.map { peer in
                    JoinGroupResponse.Member(memberID: peer.id, metadata: peer.protocols.first { $0.name == chosen }?.metadata ?? ByteBuffer())
                }
                : []
            promise.succeed(JoinGroupResponse(
                generationID: group.generation, protocolType: group.protocolType, protocolName: chosen, leader: leader, memberID: member.id,
                members: subscriptions))
        }
    }

    static func joinError(_ code: KafkaErrorCode, member: String) -> JoinGroupResponse {
        JoinGroupResponse(errorCode: code.rawValue, protocolName: nil, leader: "", memberID: member)
    }

    // MARK: SyncGroup

    func sync(_ request: SyncGroupRequest, on eventLoop: any EventLoop) -> EventLoopFuture<SyncGroupResponse> {
        func fail(_ code: KafkaErrorCode) -> EventLoopFuture<SyncGroupResponse> {
            eventLoop.makeSucceededFuture(SyncGroupResponse(errorCode: code.rawValue, assignment: ByteBuffer()))
        }
        lock.lock()
        defer { lock.unlock() }
        guard let group = groups[request.groupID], let member = group.member(request.memberID) else { return fail(.unknownMemberID) }
        guard request.generationID == group.generation else { return fail(.illegalGeneration) }
        member.lastHeartbeat = timers.now
        switch group.state {
        case .empty, .preparingRebalance:
            return fail(.rebalanceInProgress)
        case .stable:
            return eventLoop.makeSucceededFuture(SyncGroupResponse(
                protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment))
        case .completingRebalance:
            let promise = eventLoop.makePromise(of: SyncGroupResponse.self)
            member.sync?.succeed(SyncGroupResponse(errorCode: KafkaErrorCode.rebalanceInProgress.rawValue, assignment: ByteBuffer()))
            member.sync = promise
            if member.id == group.leader {
                for peer in group.members {
                    peer.assignment = request.assignments.first { $0.memberID == peer.id }?.assignment ?? ByteBuffer()
                }
                group.state = .stable
                for peer in group.members {
                    peer.sync?.succeed(SyncGroupResponse(
                        protocolType: group.protocolType, protocolName: group.protocolName, assignment: peer.assignment))
                    peer.sync = nil
                }
            }
            return promise.futureResult
        }
    }

    // MARK: Heartbeat and LeaveGroup

    func heartbeat(_ request: HeartbeatRequest) -> HeartbeatResponse {
        lock.lock()
        defer { lock.unlock() }
        guard let group = groups[request.groupID], let member = group.member(request.memberID) else {
            return HeartbeatResponse(errorCode: KafkaErrorCode.unknownMemberID.rawValue)
        }
        guard request.generationID == group.generation else { return HeartbeatResponse(errorCode: KafkaErrorCode.illegalGeneration.rawValue) }
        member.lastHeartbeat = timers.now
        if group.state == .preparingRebalance { return HeartbeatResponse(errorCode: KafkaErrorCode.rebalanceInProgress.rawValue) }
        return HeartbeatResponse()
    }

    func leave(_ request: LeaveGroupRequest) -> LeaveGroupResponse {
        lock.lock()
        defer { lock.unlock() }
        guard let group = groups[request.groupID] else {
            return LeaveGroupResponse(errorCode: KafkaErrorCode.unknownMemberID.rawValue)
        }
        var results: [LeaveGroupResponse.Member] = []
        for leaving in request.members {
            guard let member = group.member(leaving.memberID) else {
                results.append(LeaveGroupResponse.Member(memberID: leaving.memberID, errorCode: KafkaErrorCode.unknownMemberID.rawValue))
                continue
            }
            remove(member, from: group)
            results.append(LeaveGroupResponse.Member(memberID: leaving.memberID))
        }
        // Before v3 the single member's error is the response's.
        let topError = request.members.count == 1 ? results[0].errorCode : 0
        return LeaveGroupResponse(errorCode: topError, members: results)
    }

    /// Removes a member and rebalances the rest. Called with the lock held.
    private func remove(_ member: Member, from group: Group) {
        member.join?.succeed(Self.joinError(.unknownMemberID, member: member.id))
        member.sync?.succeed(SyncGroupResponse(errorCode: KafkaErrorCode.unknownMemberID.rawValue, assignment: ByteBuffer()))
        group.members.removeAll { $0 === member }
        if group.leader == member.id { group.leader = nil }
        switch group.state {
        case .stable, .completingRebalance:
            if group.members.isEmpty {
                group.state = .empty
                group.generation += 1
                group.protocolName = nil
            } else {
                prepareRebalance(group)
            }
        case .preparingRebalance:
            tryCompleteJoin(group)
        case .empty:
            break
        }
    }

    /// Every 100 ms: members silent for longer than their session timeout are removed (members
    /// waiting in a join are bounded by the rebalance timeout instead).
    private func scheduleSweep() {
        timers.scheduleTask(in: .milliseconds(100)) { [weak self] in
            guard let self else { return }
            lock.lock()
            let now = timers.now
            for group in groups.values {
                for member in group.members where member.join == nil && now - member.lastHeartbeat > member.sessionTimeout {
                    remove(member, from: group)
                }
            }
            lock.unlock()
            scheduleSweep()
        }
    }

    // MARK: Offsets

    /// Checks whether a commit with these ids may go ahead: simple consumers (generation -1)
    /// always may; group members must be current.
    func commitError(group id: String, generation: Int32, memberID: String) -> KafkaErrorCode? {
        lock.lock()
        defer { lock.unlock() }
        guard generation >= 0 else { return nil }
        guard let group = groups[id], let member = group.member(memberID) else { return .unknownMemberID }
        guard generation == group.generation else { return .illegalGeneration }
        if group.state == .preparingRebalance { return .rebalanceInProgress }
        member.lastHeartbeat = timers.now
        return nil
    }

    // MARK: Describing

    struct Description {
        var id: String
        var state: State
        var protocolType: String
        var protocolName: String
        var members: [(id: String, clientID: String, clientHost: String, metadata: ByteBuffer, assignment: ByteBuffer)]
    }

    /// Every group with members or committed offsets.
    func list() -> [(id: String, protocolType: String, state: State)] {
        lock.lock()
        var result = groups.values.map { ($0.id, $0.protocolType ?? "", $0.state) }
        lock.unlock()
        for id in offsets.groups where !result.contains(where: { $0.0 == id }) { result.append((id, "consumer", .empty)) }
        return result.sorted { $0.0 < $1.0 }
    }

    func describe(_ id: String) -> Description? {
        lock.lock()
        defer { lock.unlock() }
        guard let group = groups[id] else { return offsets.groups.contains(id) ? Description(id: id, state: .empty, protocolType: "consumer", protocolName: "", members: []) : nil }
        return Description(
            id: id, state: group.state, protocolType: group.protocolType ?? "", protocolName: group.protocolName ?? "",
            members: group.members.map { member in
                (member.id, member.clientID, member.clientHost, member.protocols.first { $0.name == group.protocolName }?.metadata ?? ByteBuffer(),
                 member.assignment)
            })
    }
}
