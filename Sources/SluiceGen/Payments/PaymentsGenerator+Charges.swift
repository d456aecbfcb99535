import SluiceCore

extension PaymentsGenerator {
    /// A charge event, members in the order of seed 004's `payment_charges` table.
    func writeCharge(facts: inout ChargeFacts, time: Int64, into event: GeneratedEvent) {
        var random = facts.random
        facts.id.write(prefix: "ch_", into: event.key)
        event.hasKey = true

        let statusDraw = random.next(below: 100)
        let status: StaticString = statusDraw < 85 ? "succeeded" : statusDraw < 95 ? "failed" : "pending"
        let isFailed = statusDraw >= 85 && statusDraw < 95
        let isCard = random.next(below: 10) > 0
        let cardCountry = random.next(below: PaymentVocabulary.countries.count)
        let billingCountry = random.next(below: 10) > 0 ? cardCountry : random.next(below: PaymentVocabulary.countries.count)

        var json = JSONObjectWriter(into: event.value)
        id("event_id", OpaqueID(&random), prefix: "evt_", &json)
        json.string("event_type", literal: statusDraw < 85 ? "charge.succeeded" : isFailed ? "charge.failed" : "charge.pending")
        json.string("provider", literal: PaymentVocabulary.providers[random.next(below: PaymentVocabulary.providers.count)])
        id("charge_id", facts.id, prefix: "ch_", &json)
        customerID(facts.customer, &json)
        json.cents("amount", facts.amountCents)
        currency(facts.currency, &json, &random)
        json.string("status", literal: status)
        if isFailed {
            let failure = PaymentVocabulary.failures[random.next(below: PaymentVocabulary.failures.count)]
            json.string("failure_code", literal: failure.code)
            json.string("failure_message", literal: failure.message)
        } else {
            absent("failure_code", &json, &random)
            absent("failure_message", &json, &random)
        }
        id("payment_method_id", OpaqueID(&random), prefix: "pm_", &json)
        if isCard {
            json.string("payment_method_type", literal: "card")
            json.string("card_brand", literal: PaymentVocabulary.cardBrands[random.next(below: PaymentVocabulary.cardBrands.count)])
            json.key("card_last4")
            json.out.append(UInt8(ascii: "\""))
            json.out.appendPadded(random.next(below: 10_000), width: 4)
            json.out.append(UInt8(ascii: "\""))
            json.int("card_exp_month", 1 + random.next(below: 12))
            json.int("card_exp_year", 2025 + random.next(below: 8))
            country("card_country", cardCountry, &json, &random)
        } else {
            json.string("payment_method_type", literal: PaymentVocabulary.otherMethods[random.next(below: PaymentVocabulary.otherMethods.count)])
            absent("card_brand", &json, &random)
            absent("card_last4", &json, &random)
            json.null("card_exp_month")
            json.null("card_exp_year")
            absent("card_country", &json, &random)
        }
        country("billing_country", billingCountry, &json, &random)
        if random.chance(defects.missingPostalCode) {
            json.null("billing_postal_code")
        } else {
            json.key("billing_postal_code")
            json.out.append(UInt8(ascii: "\""))
            PaymentVocabulary.writePostalCode(country: billingCountry, &random, into: json.out)
            json.out.append(UInt8(ascii: "\""))
        }
        merchantID(facts.merchant, &json)
        json.string("merchant_name", literal: PaymentVocabulary.merchants[facts.merchant])
        let isRenewal = random.next(below: 10) < 3
        json.string("description", literal: isRenewal ? "Subscription renewal" : "Payment for order")
        json.key("metadata")
        var metadata = JSONObjectWriter(into: json.out)
        orderID("order_id", &random, &metadata)
        metadata.key("user_email")
        json.out.append(UInt8(ascii: "\""))
        PaymentVocabulary.writeEmail(facts.customer, into: json.out)
        json.out.append(UInt8(ascii: "\""))
        if isRenewal {
            id("subscription_id", OpaqueID(&random), prefix: "sub_", &metadata)
        } else {
            absent("subscription_id", &metadata, &random)
        }
        metadata.close()
        // Failed charges run riskier; Stripe's levels: normal, elevated (65+), highest (85+).
        let risk = isFailed ? 40 + random.next(below: 61) : Int(random.nextUnit() * random.nextUnit() * 100)
        json.int("risk_score", risk)
        json.string("risk_level", literal: risk >= 85 ? "highest" : risk >= 65 ? "elevated" : "normal")
        if isCard {
            flag("3ds_authenticated", random.next(below: 10) < 7, &json)
        } else {
            absent("3ds_authenticated", &json, &random)
        }
        self.time("created_at", time, &json)
        updatedAt(created: time, &random, &json)
        json.close()
        facts.random = random
    }
}
