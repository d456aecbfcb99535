import SluiceCore

/// Change events for seed 001's `user_events` source, in the shape its `producer.py` sends:
///
///     {"id": 1, "name": "Alice", "age": 25, "op": "insert", "event_order": 1, "ts": "2025-01-01T00:00:00.000000+00:00"}
///
/// (`json.dumps` spacing; a delete has `"name": null, "age": null`). `event_order` counts from 1
/// up by one per event; the key is the id in decimal, so one user's changes stay in order in
/// one partition.
///
/// Unlike `producer.py`, which picks a user and an operation independently (and so updates and
/// deletes users that do not exist and inserts ones that do), the history is consistent: ids
/// are 1 through `users`; an insert is of an id not present (new, or deleted before), an update
/// or delete is of one present. Each event picks uniformly among the operations possible at
/// that point, as `producer.py` picks among all three. Users 1–3 start as the script's Alice
/// (25), Bob (30) and Charlie (36); an update either ages a user by a year or renames them.
package struct UserCDCGenerator: EventGenerator {
    package struct Configuration: Sendable {
        package var seed: UInt64 = 42
        /// How many ids there are; `producer.py` has three users.
        package var users = 3
        package var timeline = EventTimeline.standard
        /// `producer.py` sleeps a second after each send.
        package var eventsPerSecond = 1.0

        package init() {}
    }

    private struct User {
        var name: Int
        var age: Int
    }

    static let names: [StaticString] = [
        "Alice", "Bob", "Charlie", "Dana", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj",
        "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Yasmin",
    ]

    private var random: SplitMix64
    private var clock: EventClock
    private var eventOrder: Int64 = 0
    /// The current row of each id (index id - 1), kept across deletes for re-inserts.
    private var users: [User]
    /// Ids present, and absent; `slot[id - 1]` is an id's index in its list.
    private var present: [Int] = []
    private var absent: [Int]
    private var slot: [Int]

    package init(_ configuration: Configuration) {
        let count = max(configuration.users, 1)
        random = SplitMix64(seed: configuration.seed)
        clock = EventClock(configuration.timeline, eventsPerSecond: configuration.eventsPerSecond)
        let seedUsers = [User(name: 0, age: 25), User(name: 1, age: 30), User(name: 2, age: 36)]
        var users: [User] = []
        for id in 1 ... count {
            if id <= seedUsers.count {
                users.append(seedUsers[id - 1])
            } else {
                users.append(User(name: random.next(below: Self.names.count), age: 18 + random.next(below: 63)))
            }
        }
        self.users = users
        absent = Array(1 ... count)
        slot = Array(0 ..< count)
    }

    private enum Operation {
        case insert, update, delete
    }

    package mutating func next(into event: GeneratedEvent) {
        // Uniform over the possible operations: insert needs an absent id, update and
        // delete a present one (there is always one or the other).
        let canInsert = !absent.isEmpty
        var pick = random.next(below: (canInsert ? 1 : 0) + (present.isEmpty ? 0 : 2))
        if !canInsert { pick += 1 }
        let operation: Operation = pick == 0 ? .insert : pick == 1 ? .update : .delete
        let id: Int
        switch operation {
        case .insert:
            id = absent[random.next(below: absent.count)]
            Self.move(id, from: &absent, to: &present, slots: &slot)
        case .update:
            id = present[random.next(below: present.count)]
            if random.next(below: 2) == 0 {
                users[id - 1].age += 1
            } else {
                users[id - 1].name = random.next(below: Self.names.count)
            }
        case .delete:
            id = present[random.next(below: present.count)]
            Self.move(id, from: &present, to: &absent, slots: &slot)
        }
        eventOrder += 1
        let time = clock.next(using: &random)

        event.key.appendDecimal(id)
        event.hasKey = true
        let user = users[id - 1]
        var json = JSONObjectWriter(into: event.value, style: .python)
        json.int("id", id)
        if operation == .delete {
            json.null("name")
            json.null("age")
        } else {
            json.string("name", literal: Self.names[user.name])
            json.int("age", user.age)
        }
        switch operation {
        case .insert: json.string("op", literal: "insert")
        case .update: json.string("op", literal: "update")
        case .delete: json.string("op", literal: "delete")
        }
        json.int("event_order", eventOrder)
        json.timestamp("ts", time, .isoMicrosOffset)
        json.close()
    }

    /// Moves `id` between the present and absent lists in O(1) (swap with the last).
    private static func move(_ id: Int, from source: inout [Int], to destination: inout [Int], slots: inout [Int]) {
        let index = slots[id - 1]
        let last = source[source.count - 1]
        source[index] = last
        slots[last - 1] = index
        source.removeLast()
        slots[id - 1] = destination.count
        destination.append(id)
    }
}
