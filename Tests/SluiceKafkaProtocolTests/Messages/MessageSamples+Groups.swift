import NIOCore

@testable import SluiceKafkaProtocol

extension MessageSamples {
    /// FindCoordinator, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
    /// ListGroups, DescribeGroups.
    static let groups: [MessageCase] = []
}
