import SluiceCore

extension PaymentsGenerator {
    struct Plan {
        let id: StaticString
        let name: StaticString
        let cents: Int64
        /// 0 week, 1 month, 2 year.
        let interval: Int
        let count: Int
    }

    static let plans: [Plan] = [
        Plan(id: "plan_starter_weekly", name: "Starter Weekly", cents: 299, interval: 0, count: 1),
        Plan(id: "plan_basic_monthly", name: "Basic", cents: 999, interval: 1, count: 1),
        Plan(id: "plan_basic_quarterly", name: "Basic Quarterly", cents: 2699, interval: 1, count: 3),
        Plan(id: "plan_pro_monthly", name: "Pro", cents: 2999, interval: 1, count: 1),
        Plan(id: "plan_team_monthly", name: "Team", cents: 9900, interval: 1, count: 1),
        Plan(id: "plan_pro_yearly", name: "Pro Annual", cents: 29900, interval: 2, count: 1),
    ]
    /// Each interval's spelling and its inconsistent variants.
    static let intervals: [(name: StaticString, variants: [StaticString])] = [
        ("week", ["weekly", "WEEK", "Week", "1 week"]),
        ("month", ["monthly", "MONTH", "Month", "1 month"]),
        ("year", ["yearly", "YEAR", "Year", "1 year"]),
    ]
    static let intervalDays: [Int64] = [7, 30, 365]
    static let coupons: [(id: StaticString, percentOff: Int)] = [("SAVE10", 10), ("LAUNCH15", 15), ("WELCOME20", 20), ("HALFOFF", 50)]
    static let signupSources: [StaticString] = ["web", "web", "mobile_app", "partner", "sales"]
    static let statuses: [StaticString] = ["trialing", "active", "past_due", "canceled"]
    static let trialing: UInt8 = 0, active: UInt8 = 1, pastDue: UInt8 = 2, canceled: UInt8 = 3
    static let dayMicroseconds: Int64 = 86_400_000_000

    /// What subscription `index` is, from the seed and `index` alone.
    struct SubscriptionFacts {
        let id: OpaqueID
        let customer: Int
        let merchant: Int
        let plan: Int
        let currency: Int
        let hasTrial: Bool
        /// Index into `coupons`, or -1.
        let coupon: Int
        let signupSource: Int
        let paymentMethod: OpaqueID

        init(seed: UInt64, index: Int) {
            var random = SplitMix64.stream(seed: seed ^ PaymentVocabulary.subscriptionSalt, UInt64(index))
            id = OpaqueID(&random)
            customer = random.next(below: PaymentVocabulary.customerCount)
            merchant = random.next(below: PaymentVocabulary.merchants.count)
            plan = random.next(below: PaymentsGenerator.plans.count)
            currency = PaymentVocabulary.weightedCurrency(&random)
            hasTrial = random.next(below: 10) < 3
            coupon = random.next(below: 4) == 0 ? random.next(below: PaymentsGenerator.coupons.count) : -1
            signupSource = random.next(below: PaymentsGenerator.signupSources.count)
            paymentMethod = OpaqueID(&random)
        }
    }

    /// A subscription lifecycle event (the `payment_subscriptions` table): a new subscription
    /// about a third of the time, else a change to a live one — trialing → active,
    /// active → past_due now and then, past_due → active, or (one change in seven) cancellation,
    /// after which the subscription has no more events.
    mutating func writeSubscriptionEvent(_ number: Int64, time: Int64, into event: GeneratedEvent) {
        var random = SplitMix64.stream(seed: seed ^ 0x7375_6273, UInt64(number))
        let index: Int
        let isCreation = liveSubscriptions.isEmpty || random.next(below: 3) == 0
        if isCreation {
            index = subscriptionStatus.count
            let facts = SubscriptionFacts(seed: seed, index: index)
            subscriptionStatus.append(facts.hasTrial ? Self.trialing : Self.active)
            subscriptionCreated.append(time)
            liveSlot.append(liveSubscriptions.count)
            liveSubscriptions.append(index)
        } else {
            index = liveSubscriptions[random.next(below: liveSubscriptions.count)]
            let status = subscriptionStatus[index]
            if random.next(below: 7) == 0 {
                subscriptionStatus[index] = Self.canceled
                let slot = liveSlot[index]
                let last = liveSubscriptions.removeLast()
                if last != index {
                    liveSubscriptions[slot] = last
                    liveSlot[last] = slot
                }
            } else if status == Self.trialing || status == Self.pastDue {
                subscriptionStatus[index] = Self.active
            } else if random.next(below: 5) == 0 {
                subscriptionStatus[index] = Self.pastDue
            }
        }
        writeSubscription(index, isCreation: isCreation, time: time, &random, into: event)
    }

    private func writeSubscription(_ index: Int, isCreation: Bool, time: Int64, _ random: inout SplitMix64, into event: GeneratedEvent) {
        let facts = SubscriptionFacts(seed: seed, index: index)
        let status = subscriptionStatus[index]
        let created = subscriptionCreated[index]
        let plan = Self.plans[facts.plan]
        facts.id.write(prefix: "sub_", into: event.key)
        event.hasKey = true

        var json = JSONObjectWriter(into: event.value)
        id("event_id", OpaqueID(&random), prefix: "evt_", &json)
        json.string(
            "event_type",
            literal: isCreation ? "customer.subscription.created" : status == Self.canceled ? "customer.subscription.deleted" : "customer.subscription.updated")
        json.string("provider", literal: PaymentVocabulary.providers[index % PaymentVocabulary.providers.count])
        id("subscription_id", facts.id, prefix: "sub_", &json)
        customerID(facts.customer, &json)
        json.string("plan_id", literal: plan.id)
        json.string("plan_name", literal: plan.name)
        json.cents("amount", plan.cents)
        currency(facts.currency, &json, &random)
        let interval = Self.intervals[plan.interval]
        if random.chance(defects.intervalFormat) {
            json.string("interval", literal: interval.variants[random.next(below: interval.variants.count)])
        } else {
            json.string("interval", literal: interval.name)
        }
        json.int("interval_count", plan.count)
        json.string("status", literal: Self.statuses[Int(status)])
        flag("cancel_at_period_end", status == Self.active && random.next(below: 10) == 0, &json)
        if status == Self.canceled { self.time("canceled_at", time, &json) } else { json.null("canceled_at") }
        let trialEnd = created + 14 * Self.dayMicroseconds
        if facts.hasTrial && !(status == Self.trialing && random.chance(defects.nullTrialDates)) {
            self.time("trial_start", created, &json)
            self.time("trial_end", trialEnd, &json)
        } else {
            json.null("trial_start")
            json.null("trial_end")
        }
        // The billing period the event falls in (the trial, while trialing).
        let periodStart: Int64
        let periodEnd: Int64
        if status == Self.trialing {
            (periodStart, periodEnd) = (created, trialEnd)
        } else {
            let billingStart = facts.hasTrial ? trialEnd : created
            let length = Self.intervalDays[plan.interval] * Int64(plan.count) * Self.dayMicroseconds
            let periods = max(time - billingStart, 0) / length
            periodStart = billingStart + periods * length
            periodEnd = periodStart + length
        }
        self.time("current_period_start", periodStart, &json)
        self.time("current_period_end", periodEnd, &json)
        id("payment_method_id", facts.paymentMethod, prefix: "pm_", &json)
        merchantID(facts.merchant, &json)
        json.key("metadata")
        var metadata = JSONObjectWriter(into: json.out)
        metadata.key("user_email")
        json.out.append(UInt8(ascii: "\""))
        PaymentVocabulary.writeEmail(facts.customer, into: json.out)
        json.out.append(UInt8(ascii: "\""))
        metadata.string("signup_source", literal: Self.signupSources[facts.signupSource])
        if facts.coupon >= 0 && !random.chance(defects.missingPromoCode) {
            metadata.string("promo_code", literal: Self.coupons[facts.coupon].id)
        } else {
            metadata.null("promo_code")
        }
        metadata.close()
        if facts.coupon >= 0 {
            json.key("discount")
            var discount = JSONObjectWriter(into: json.out)
            discount.string("coupon_id", literal: Self.coupons[facts.coupon].id)
            discount.int("percent_off", Self.coupons[facts.coupon].percentOff)
            discount.close()
        } else {
            json.null("discount")
        }
        self.time("created_at", created, &json)
        self.time("updated_at", time, &json)
        json.close()
    }
}
