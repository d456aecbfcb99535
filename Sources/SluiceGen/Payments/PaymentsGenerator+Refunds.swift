import SluiceCore

extension PaymentsGenerator {
    static let refundReasons: [(snake: StaticString, words: StaticString, upper: StaticString, hyphens: StaticString)] = [
        ("requested_by_customer", "Requested By Customer", "REQUESTED_BY_CUSTOMER", "requested-by-customer"),
        ("duplicate", "Duplicate", "DUPLICATE", "duplicate"),
        ("fraudulent", "Fraudulent", "FRAUDULENT", "fraudulent"),
        ("expired_uncaptured_charge", "Expired Uncaptured Charge", "EXPIRED_UNCAPTURED_CHARGE", "expired-uncaptured-charge"),
    ]
    static let refundFailures: [StaticString] = ["lost_or_stolen_card", "expired_or_canceled_card", "charge_for_pending_refund_disputed", "insufficient_funds"]
    static let refundRequesters: [StaticString] = ["customer", "merchant", "support_agent"]

    /// A refund event (seed 004's `payment_refunds` table) of one of the charges made so far.
    func writeRefund(_ number: Int64, time: Int64, into event: GeneratedEvent) {
        var random = SplitMix64.stream(seed: seed ^ 0x7265_6675_6E64, UInt64(number))
        let charge = ChargeFacts(seed: seed, number: referencedCharge(number, ratio: 4, &random))
        charge.id.write(prefix: "ch_", into: event.key)
        event.hasKey = true

        let statusDraw = random.next(below: 100)
        let status: StaticString = statusDraw < 80 ? "succeeded" : statusDraw < 92 ? "pending" : statusDraw < 97 ? "failed" : "canceled"
        let isFailed = statusDraw >= 92 && statusDraw < 97

        var json = JSONObjectWriter(into: event.value)
        id("event_id", OpaqueID(&random), prefix: "evt_", &json)
        json.string("event_type", literal: statusDraw < 80 ? "refund.updated" : statusDraw < 92 ? "refund.created" : isFailed ? "refund.failed" : "refund.updated")
        json.string("provider", literal: PaymentVocabulary.providers[random.next(below: PaymentVocabulary.providers.count)])
        id("refund_id", OpaqueID(&random), prefix: "re_", &json)
        id("charge_id", charge.id, prefix: "ch_", &json)
        customerID(charge.customer, &json)
        // Full refunds mostly, else part of the charge.
        let amount = random.next(below: 10) < 6 ? charge.amountCents : max(1, Int64(Double(charge.amountCents) * (0.1 + 0.85 * random.nextUnit())))
        json.cents("amount", amount)
        currency(charge.currency, &json, &random)
        if random.chance(defects.nullStatus) {
            json.null("status")
        } else {
            json.string("status", literal: status)
        }
        let reason = Self.refundReasons[random.next(below: Self.refundReasons.count)]
        if random.chance(defects.reasonFormat) {
            switch random.next(below: 3) {
            case 0: json.string("reason", literal: reason.words)
            case 1: json.string("reason", literal: reason.upper)
            default: json.string("reason", literal: reason.hyphens)
            }
        } else {
            json.string("reason", literal: reason.snake)
        }
        if isFailed {
            json.string("failure_reason", literal: Self.refundFailures[random.next(below: Self.refundFailures.count)])
        } else {
            absent("failure_reason", &json, &random)
        }
        merchantID(charge.merchant, &json)
        json.key("metadata")
        var metadata = JSONObjectWriter(into: json.out)
        metadata.string("refund_requested_by", literal: Self.refundRequesters[random.next(below: Self.refundRequesters.count)])
        orderID("original_order_id", &random, &metadata)
        if random.chance(defects.missingSupportTicket) {
            metadata.null("support_ticket_id")
        } else {
            metadata.key("support_ticket_id")
            json.out.append("\"TKT-")
            json.out.appendPadded(random.next(below: 1_000_000), width: 6)
            json.out.append(UInt8(ascii: "\""))
        }
        metadata.close()
        self.time("created_at", time, &json)
        updatedAt(created: time, &random, &json)
        json.close()
    }
}
