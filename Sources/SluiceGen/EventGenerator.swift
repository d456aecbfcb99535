#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

// SluiceGen: seeded generators of the events the seeds' pipelines consume, and of Nexmark's.
//
// Each generator writes one event at a time, as a JSON text and an optional Kafka key, into a
// reused `GeneratedEvent`; an `EventSink` takes it from there (NDJSON to a file, records to a
// Kafka topic). Generating allocates nothing per event once the buffers have grown, so a
// generator makes millions of events a second on one core.
//
// Reproducibility: everything an event holds comes from the generator's seed, except its
// timestamps on a wall-clock timeline (`EventTimeline.wallClock`). On a simulated timeline
// the same seed and settings give byte-identical output.

/// A source of events: each call writes the next one.
package protocol EventGenerator {
    /// Writes the next event's value (and key, if it has one) into `event`, which the caller
    /// cleared.
    mutating func next(into event: GeneratedEvent)
}

/// The buffers one event is written into, reused for every event.
package final class GeneratedEvent {
    /// The record key's bytes; meaningful only when ``hasKey``.
    package let key = ByteWriter(capacity: 64)
    /// The event as one JSON object, without a line end.
    package let value = ByteWriter(capacity: 1024)
    package var hasKey = false

    package init() {}

    /// Empties both buffers.
    package func clear() {
        key.removeAll()
        value.removeAll()
        hasKey = false
    }

    /// The key's bytes, or nil when the event has none; valid until the next event.
    package var keyBytes: UnsafeRawBufferPointer? {
        hasKey ? key.bytes : nil
    }
}

/// Where event timestamps come from.
package enum EventTimeline: Sendable, Equatable {
    /// A deterministic clock: the first event at `start` (microseconds since 1970, UTC), each
    /// next one a seeded gap later. Output depends only on the seed.
    case simulated(start: Int64)
    /// The real time at which each event is generated.
    case wallClock

    /// A simulated timeline from 2025-01-01T00:00:00Z, the generators' default.
    package static let standard = EventTimeline.simulated(start: 1_735_689_600_000_000)
}

/// The clock a generator reads its event times from: simulated (advanced by seeded gaps
/// around a mean) or the wall clock.
package struct EventClock {
    private let timeline: EventTimeline
    private var current: Int64
    /// The mean gap between simulated events, in microseconds.
    private let meanGap: Int64

    /// A clock for `eventsPerSecond` events a second on a simulated timeline.
    package init(_ timeline: EventTimeline, eventsPerSecond: Double) {
        self.timeline = timeline
        if case .simulated(let start) = timeline { current = start } else { current = 0 }
        meanGap = max(Int64((1_000_000 / max(eventsPerSecond, 1e-6)).rounded()), 0)
    }

    /// The next event's time. Simulated gaps are uniform in [½, 1½) of the mean, so rates
    /// wobble the way a producer's sleeps do; the first event is at the start itself.
    package mutating func next(using random: inout SplitMix64) -> Int64 {
        switch timeline {
        case .wallClock:
            return wallClockMicroseconds()
        case .simulated:
            let now = current
            if meanGap > 0 {
                current += meanGap / 2 + Int64(random.next() % UInt64(meanGap))
            }
            return now
        }
    }

    /// The wall-clock time in microseconds since 1970.
    package static func wallClock() -> Int64 {
        wallClockMicroseconds()
    }
}

/// Microseconds since 1970 from the system's real-time clock.
func wallClockMicroseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

extension SplitMix64 {
    /// A uniform double in [0, 1).
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `probability`.
    package mutating func chance(_ probability: Double) -> Bool {
        probability > 0 && nextUnit() < probability
    }

    /// A generator for sub-stream `index` of `seed`: independent of the others, stable
    /// whatever else is drawn.
    package static func stream(seed: UInt64, _ index: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (index &* 0xD6E8_FEB8_6659_FD93))
        return SplitMix64(seed: mixer.next())
    }
}
