import SluiceCore

extension PaymentsGenerator {
    /// Stripe's dispute reasons with a Visa and a Mastercard reason code for each.
    static let disputeReasons: [(reason: StaticString, visa: StaticString, mastercard: StaticString)] = [
        ("fraudulent", "10.4", "4837"), ("fraudulent", "10.4", "4863"),
        ("product_not_received", "13.1", "4855"), ("duplicate", "12.6.1", "4834"),
        ("subscription_canceled", "13.2", "4841"), ("unrecognized", "10.4", "4863"),
        ("credit_not_processed", "13.6", "4860"), ("general", "13.3", "4853"),
    ]
    static let disputeStatuses: [(status: StaticString, eventType: StaticString)] = [
        ("warning_needs_response", "charge.dispute.created"), ("needs_response", "charge.dispute.created"),
        ("needs_response", "charge.dispute.created"), ("under_review", "charge.dispute.updated"),
        ("under_review", "charge.dispute.updated"), ("won", "charge.dispute.closed"), ("lost", "charge.dispute.closed"),
    ]

    /// A dispute event (the `payment_disputes` table) of one of the charges made so far.
    func writeDispute(_ number: Int64, time: Int64, into event: GeneratedEvent) {
        var random = SplitMix64.stream(seed: seed ^ 0x6469_7370_7574_65, UInt64(number))
        let charge = ChargeFacts(seed: seed, number: referencedCharge(number, ratio: 10, &random))
        charge.id.write(prefix: "ch_", into: event.key)
        event.hasKey = true
        let statusIndex = random.next(below: Self.disputeStatuses.count)
        let status = Self.disputeStatuses[statusIndex]
        // The first three statuses are of disputes just opened.
        let isOpening = statusIndex < 3
        let reason = Self.disputeReasons[random.next(below: Self.disputeReasons.count)]

        var json = JSONObjectWriter(into: event.value)
        id("event_id", OpaqueID(&random), prefix: "evt_", &json)
        json.string("event_type", literal: status.eventType)
        json.string("provider", literal: PaymentVocabulary.providers[random.next(below: PaymentVocabulary.providers.count)])
        id("dispute_id", OpaqueID(&random), prefix: "dp_", &json)
        id("charge_id", charge.id, prefix: "ch_", &json)
        customerID(charge.customer, &json)
        json.cents("amount", charge.amountCents)
        if random.chance(defects.nullCurrency) {
            json.null("currency")
        } else {
            currency(charge.currency, &json, &random)
        }
        json.string("status", literal: status.status)
        json.string("reason", literal: reason.reason)
        // Evidence is due one to three weeks after the dispute opens.
        self.time("evidence_due_by", time + Int64(7 + random.next(below: 15)) * 86_400_000_000, &json)
        flag("is_charge_refundable", random.next(below: 10) < 3, &json)
        merchantID(charge.merchant, &json)
        json.key("metadata")
        var metadata = JSONObjectWriter(into: json.out)
        metadata.key("case_number")
        json.out.append("\"CASE-")
        if random.chance(defects.incompleteCaseNumber) {
            // Cut short: none to four of the eight digits.
            for _ in 0 ..< random.next(below: 5) {
                json.out.append(UInt8(ascii: "0") + UInt8(random.next(below: 10)))
            }
        } else {
            json.out.appendPadded(random.next(below: 100_000_000), width: 8)
        }
        json.out.append(UInt8(ascii: "\""))
        if random.chance(defects.missingEvidence) {
            metadata.null("customer_contacted")
            metadata.null("evidence_submitted")
        } else {
            flag("customer_contacted", random.next(below: 2) == 0, &metadata)
            flag("evidence_submitted", !isOpening || random.next(below: 4) == 0, &metadata)
        }
        metadata.close()
        json.string("network_reason_code", literal: random.next(below: 2) == 0 ? reason.visa : reason.mastercard)
        self.time("created_at", time, &json)
        updatedAt(created: time, &random, &json)
        json.close()
    }
}
