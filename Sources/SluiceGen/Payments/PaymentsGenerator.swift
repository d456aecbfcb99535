import SluiceCore

/// Seed 004's Stripe-like payment events, one kind per run (one topic each): charges,
/// refunds, disputes or subscription lifecycle events, with the members of the seed's Flink
/// tables (`payment_charges`, `payment_refunds`, and the `payment_disputes` and
/// `payment_subscriptions` tables of the same project) and its data-quality defects
/// (`PaymentDefects`) at small rates.
///
/// - Amounts are JSON numbers with two decimals (`DECIMAL(10, 2)`); `risk_score`,
///   `card_exp_month`, `card_exp_year`, `interval_count` and `percent_off` are integers; the
///   flags the tables declare `STRING` (`3ds_authenticated`, `is_charge_refundable`,
///   `cancel_at_period_end`) are the strings `"true"` and `"false"`; times are
///   `2025-01-01T00:00:00.123` (ISO-8601 with milliseconds, UTC, no zone, as Flink's
///   `TIMESTAMP(3)` reads them).
/// - Refunds and disputes name charges of the charges stream of the same seed — with those
///   charges' customers, merchants and currencies, and amounts no larger — as charge `k` is a
///   function of the seed and `k` (`ChargeFacts`); refund `n` names one of the charges made by
///   then at the seed's rates (four charges per refund, ten per dispute).
/// - Subscriptions go through a lifecycle: created (trialing or active), updated (trialing →
///   active, active ⇄ past_due) and deleted (canceled, final).
/// - Keys: `charge_id` for charges, refunds and disputes (so they co-partition), and
///   `subscription_id` for subscriptions.
///
/// The simulated timelines run at the seed's JR frequencies: a charge every 500 ms, a refund
/// every 2 s, a dispute every 5 s, a subscription event every 3 s.
package struct PaymentsGenerator: EventGenerator {
    package enum Kind: String, Sendable, CaseIterable {
        case charges, refunds, disputes, subscriptions

        /// Seed 004's `make jr-…` frequencies, as events per second.
        package var seedRate: Double {
            switch self {
            case .charges: 2
            case .refunds: 0.5
            case .disputes: 0.2
            case .subscriptions: 1.0 / 3
            }
        }

        /// The seed's topic.
        package var topic: String {
            "payment_\(rawValue)"
        }
    }

    package struct Configuration: Sendable {
        package var seed: UInt64 = 42
        package var kind = Kind.charges
        package var defects = PaymentDefects.standard
        package var timeline = EventTimeline.standard
        /// nil: the kind's `seedRate`.
        package var eventsPerSecond: Double?

        package init() {}
    }

    let configuration: Configuration
    var defects: PaymentDefects { configuration.defects }
    var seed: UInt64 { configuration.seed }
    private var clock: EventClock
    private var clockRandom: SplitMix64
    /// Events written so far.
    private(set) var eventNumber: Int64 = 0
    /// Subscriptions: each one's status (`SubscriptionStatus` raw value) and creation time.
    var subscriptionStatus: [UInt8] = []
    var subscriptionCreated: [Int64] = []
    /// Subscriptions not canceled, and where each sits in that list.
    var liveSubscriptions: [Int] = []
    var liveSlot: [Int] = []

    package init(_ configuration: Configuration) {
        self.configuration = configuration
        clock = EventClock(configuration.timeline, eventsPerSecond: configuration.eventsPerSecond ?? configuration.kind.seedRate)
        clockRandom = SplitMix64.stream(seed: configuration.seed, 0x636C_6F63_6B)
    }

    package mutating func next(into event: GeneratedEvent) {
        let number = eventNumber
        eventNumber += 1
        let time = clock.next(using: &clockRandom)
        switch configuration.kind {
        case .charges:
            var facts = ChargeFacts(seed: seed, number: number)
            writeCharge(facts: &facts, time: time, into: event)
        case .refunds:
            writeRefund(number, time: time, into: event)
        case .disputes:
            writeDispute(number, time: time, into: event)
        case .subscriptions:
            writeSubscriptionEvent(number, time: time, into: event)
        }
    }

    /// The number of a charge made before event `number` of a kind `ratio` times rarer than
    /// charges: one of the newest thousand.
    func referencedCharge(_ number: Int64, ratio: Int64, _ random: inout SplitMix64) -> Int64 {
        let made = max((number + 1) * ratio, 1)
        let oldest = max(made - 1000, 0)
        return oldest + Int64(random.next() % UInt64(made - oldest))
    }
}

/// Members common to the payment kinds, with the defects that touch them.
extension PaymentsGenerator {
    /// A member without a value: `null`, or with the null-spelling defect `"NULL"`, `"null"`
    /// or `""`.
    func absent(_ name: StaticString, _ json: inout JSONObjectWriter, _ random: inout SplitMix64) {
        guard random.chance(defects.nullSpelling) else {
            json.null(name)
            return
        }
        switch random.next(below: 3) {
        case 0: json.string(name, literal: "NULL")
        case 1: json.string(name, literal: "null")
        default: json.string(name, literal: "")
        }
    }

    /// `currency`, with the mixed-case defect.
    func currency(_ index: Int, _ json: inout JSONObjectWriter, _ random: inout SplitMix64) {
        if random.chance(defects.mixedCaseCurrency) {
            let spellings = random.next(below: 2) == 0 ? PaymentVocabulary.lowercaseCurrencies : PaymentVocabulary.capitalizedCurrencies
            json.string("currency", literal: spellings[index])
        } else {
            json.string("currency", literal: PaymentVocabulary.currencies[index])
        }
    }

    /// A country code member, with the invalid-code defect (a three-digit number).
    func country(_ name: StaticString, _ index: Int, _ json: inout JSONObjectWriter, _ random: inout SplitMix64) {
        if random.chance(defects.invalidCountry) {
            json.key(name)
            json.out.append(UInt8(ascii: "\""))
            json.out.appendDecimal(100 + random.next(below: 900))
            json.out.append(UInt8(ascii: "\""))
        } else {
            json.string(name, literal: PaymentVocabulary.countries[index])
        }
    }

    /// A member holding an id: `prefix` and 24 opaque characters.
    func id(_ name: StaticString, _ id: OpaqueID, prefix: StaticString, _ json: inout JSONObjectWriter) {
        json.key(name)
        json.out.append(UInt8(ascii: "\""))
        id.write(prefix: prefix, into: json.out)
        json.out.append(UInt8(ascii: "\""))
    }

    func customerID(_ index: Int, _ json: inout JSONObjectWriter) {
        json.key("customer_id")
        json.out.append(UInt8(ascii: "\""))
        PaymentVocabulary.writeCustomerID(index, seed: seed, into: json.out)
        json.out.append(UInt8(ascii: "\""))
    }

    func merchantID(_ index: Int, _ json: inout JSONObjectWriter) {
        json.key("merchant_id")
        json.out.append(UInt8(ascii: "\""))
        PaymentVocabulary.writeMerchantID(index, seed: seed, into: json.out)
        json.out.append(UInt8(ascii: "\""))
    }

    /// An order id: `ord_` and 12 digits.
    func orderID(_ name: StaticString, _ random: inout SplitMix64, _ json: inout JSONObjectWriter) {
        json.key(name)
        json.out.append("\"ord_")
        json.out.appendPadded(random.next(below: 1_000_000) * 1_000_000 + random.next(below: 1_000_000), width: 12)
        json.out.append(UInt8(ascii: "\""))
    }

    /// `"true"` or `"false"`, for the flags the seed's tables declare as strings.
    func flag(_ name: StaticString, _ value: Bool, _ json: inout JSONObjectWriter) {
        json.string(name, literal: value ? "true" : "false")
    }

    func time(_ name: StaticString, _ microseconds: Int64, _ json: inout JSONObjectWriter) {
        json.timestamp(name, microseconds, .isoMillis)
    }

    /// `updated_at`: the event time, or up to two seconds after `created` when the event is
    /// about something just created.
    func updatedAt(created: Int64, _ random: inout SplitMix64, _ json: inout JSONObjectWriter) {
        time("updated_at", created + Int64(random.next(below: 2000)) * 1000, &json)
    }
}
