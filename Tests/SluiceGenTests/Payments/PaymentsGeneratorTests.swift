import Testing

@testable import SluiceGen

@Suite struct PaymentsGeneratorTests {
    private func events(_ kind: PaymentsGenerator.Kind, seed: UInt64 = 42, defects: PaymentDefects = .standard, count: Int) -> [Event] {
        var configuration = PaymentsGenerator.Configuration()
        configuration.seed = seed
        configuration.kind = kind
        configuration.defects = defects
        var generator = PaymentsGenerator(configuration)
        return generate(&generator, count: count)
    }

    /// The members of each kind, in the order of the seed's tables, with the types each may have.
    static let shapes: [PaymentsGenerator.Kind: [(String, Set<JSONType>)]] = {
        let text: Set<JSONType> = [.string]
        let nullableText: Set<JSONType> = [.string, .null]
        let money: Set<JSONType> = [.decimal]
        let object: Set<JSONType> = [.object]
        return [
            .charges: [
                ("event_id", text), ("event_type", text), ("provider", text), ("charge_id", text), ("customer_id", text),
                ("amount", money), ("currency", text), ("status", text), ("failure_code", nullableText), ("failure_message", nullableText),
                ("payment_method_id", text), ("payment_method_type", text), ("card_brand", nullableText), ("card_last4", nullableText),
                ("card_exp_month", [.integer, .null]), ("card_exp_year", [.integer, .null]), ("card_country", nullableText),
                ("billing_country", text), ("billing_postal_code", nullableText), ("merchant_id", text), ("merchant_name", text),
                ("description", text), ("metadata", object), ("risk_score", [.integer]), ("risk_level", text),
                ("3ds_authenticated", nullableText), ("created_at", text), ("updated_at", text),
            ],
            .refunds: [
                ("event_id", text), ("event_type", text), ("provider", text), ("refund_id", text), ("charge_id", text),
                ("customer_id", text), ("amount", money), ("currency", text), ("status", nullableText), ("reason", text),
                ("failure_reason", nullableText), ("merchant_id", text), ("metadata", object), ("created_at", text), ("updated_at", text),
            ],
            .disputes: [
                ("event_id", text), ("event_type", text), ("provider", text), ("dispute_id", text), ("charge_id", text),
                ("customer_id", text), ("amount", money), ("currency", nullableText), ("status", text), ("reason", text),
                ("evidence_due_by", text), ("is_charge_refundable", text), ("merchant_id", text), ("metadata", object),
                ("network_reason_code", text), ("created_at", text), ("updated_at", text),
            ],
            .subscriptions: [
                ("event_id", text), ("event_type", text), ("provider", text), ("subscription_id", text), ("customer_id", text),
                ("plan_id", text), ("plan_name", text), ("amount", money), ("currency", text), ("interval", text),
                ("interval_count", [.integer]), ("status", text), ("cancel_at_period_end", text), ("canceled_at", nullableText),
                ("trial_start", nullableText), ("trial_end", nullableText), ("current_period_start", text),
                ("current_period_end", text), ("payment_method_id", text), ("merchant_id", text), ("metadata", object),
                ("discount", [.object, .null]), ("created_at", text), ("updated_at", text),
            ],
        ]
    }()

    static let metadataKeys: [PaymentsGenerator.Kind: [String]] = [
        .charges: ["order_id", "user_email", "subscription_id"],
        .refunds: ["refund_requested_by", "original_order_id", "support_ticket_id"],
        .disputes: ["case_number", "customer_contacted", "evidence_submitted"],
        .subscriptions: ["user_email", "signup_source", "promo_code"],
    ]

    @Test(arguments: PaymentsGenerator.Kind.allCases)
    func sameSeedSameBytesOtherSeedOtherBytes(kind: PaymentsGenerator.Kind) {
        #expect(ndjson(events(kind, count: 500)) == ndjson(events(kind, count: 500)))
        #expect(ndjson(events(kind, count: 500)) != ndjson(events(kind, seed: 43, count: 500)))
    }

    @Test(arguments: PaymentsGenerator.Kind.allCases)
    func everyLineHasTheTablesMembers(kind: PaymentsGenerator.Kind) throws {
        let shape = try #require(Self.shapes[kind])
        for event in events(kind, defects: PaymentDefects(rate: 0.2), count: 2000) {
            let json = try #require(event.json, "not JSON: \(event.text)")
            #expect(json.keys == shape.map(\.0))
            for (name, types) in shape {
                #expect(types.contains(JSONType(json[name]!)), "\(kind) \(name) is \(json[name]!)")
            }
            #expect(json["metadata"]?.keys == Self.metadataKeys[kind])
            if case .decimal(let amount) = json["amount"]! {
                #expect(amount.split(separator: ".").last?.count == 2, "amount \(amount)")
            }
            let created = try #require(json["created_at"]?.string)
            #expect(created.count == 23 && created.contains("T"), "created_at \(created)")
            let key = kind == .subscriptions ? json["subscription_id"]?.string : json["charge_id"]?.string
            #expect(event.keyText == key)
        }
    }

    private func share(_ events: [Event], where condition: (JSONValue) -> Bool?) -> Double {
        var hits = 0
        var total = 0
        for event in events {
            guard let json = event.json, let hit = condition(json) else { continue }
            total += 1
            if hit { hits += 1 }
        }
        return Double(hits) / Double(max(total, 1))
    }

    /// Over 100,000 charges at a 5 % defect rate, each of the seed's charge defects shows up in
    /// about 5 % of the events where it can; with no defects, none does.
    @Test func chargeDefectRatesAreAsConfigured() {
        let defective = events(.charges, defects: PaymentDefects(rate: 0.05), count: 100_000)
        let clean = events(.charges, defects: .none, count: 20_000)
        let currencies: Set<String> = ["USD", "EUR", "GBP", "CAD", "JPY"]
        let countries: Set<String> = ["US", "CA", "GB", "FR", "DE", "AU"]
        let nullSpellings: Set<String> = ["NULL", "null", ""]

        let mixedCase: (JSONValue) -> Bool? = { json in json["currency"]?.string.map { !currencies.contains($0) } }
        let mixedCaseShare = share(defective, where: mixedCase)
        #expect(abs(mixedCaseShare - 0.05) < 0.005, "mixed-case currencies \(mixedCaseShare)")
        #expect(share(clean, where: mixedCase) == 0)
        #expect(share(defective) { json in json["currency"]?.string.map { currencies.contains($0.uppercased()) } } == 1)

        let invalidCountry: (JSONValue) -> Bool? = { json in
            json["billing_country"]?.string.map { !countries.contains($0) && $0.count == 3 && $0.allSatisfy(\.isNumber) }
        }
        let invalidShare = share(defective, where: invalidCountry)
        #expect(abs(invalidShare - 0.05) < 0.005, "invalid billing countries \(invalidShare)")
        #expect(share(clean, where: invalidCountry) == 0)
        let invalidCardCountry = share(defective) { json in
            json["payment_method_type"]?.string == "card" ? !countries.contains(json["card_country"]?.string ?? "") : nil
        }
        #expect(abs(invalidCardCountry - 0.05) < 0.006, "invalid card countries \(invalidCardCountry)")

        let missingPostal: (JSONValue) -> Bool? = { json in json["billing_postal_code"]?.isNull }
        #expect(abs(share(defective, where: missingPostal) - 0.05) < 0.005)
        #expect(share(clean, where: missingPostal) == 0)

        // A succeeded charge has no failure code: null, or at the defect rate a null spelling.
        let spelled: (JSONValue) -> Bool? = { json in
            guard json["status"]?.string != "failed", let code = json["failure_code"] else { return nil }
            if code.isNull { return false }
            return code.string.map { nullSpellings.contains($0) }
        }
        #expect(abs(share(defective, where: spelled) - 0.05) < 0.005)
        #expect(share(clean, where: spelled) == 0)
        var spellingCounts: [String: Int] = [:]
        for event in defective {
            if let code = event.json?["failure_code"]?.string, nullSpellings.contains(code) { spellingCounts[code, default: 0] += 1 }
        }
        #expect(spellingCounts.count == 3 && spellingCounts.values.allSatisfy { $0 > 1000 }, "\(spellingCounts)")
    }

    @Test func otherKindsDefectsShowUp() {
        let refunds = events(.refunds, defects: PaymentDefects(rate: 0.05), count: 20_000)
        #expect(abs(share(refunds) { $0["status"]?.isNull } - 0.05) < 0.01)
        #expect(abs(share(refunds) { $0["metadata"]?["support_ticket_id"]?.isNull } - 0.05) < 0.01)
        // Ten of the twelve misspellings differ from the canonical reason ("duplicate" and
        // "fraudulent" have no hyphens to add).
        let reasons: Set<String> = ["requested_by_customer", "duplicate", "fraudulent", "expired_uncaptured_charge"]
        #expect(abs(share(refunds) { json in json["reason"]?.string.map { !reasons.contains($0) } } - 0.05 * 10 / 12) < 0.01)
        let disputes = events(.disputes, defects: PaymentDefects(rate: 0.05), count: 20_000)
        #expect(abs(share(disputes) { $0["currency"]?.isNull } - 0.05) < 0.01)
        #expect(abs(share(disputes) { $0["metadata"]?["evidence_submitted"]?.isNull } - 0.05) < 0.01)
        #expect(abs(share(disputes) { json in json["metadata"]?["case_number"]?.string.map { $0.count < 13 } } - 0.05) < 0.01)
        let subscriptions = events(.subscriptions, defects: PaymentDefects(rate: 0.05), count: 20_000)
        #expect(abs(share(subscriptions) { json in json["interval"]?.string.map { !["week", "month", "year"].contains($0) } } - 0.05) < 0.01)
        #expect(abs(share(subscriptions) { json in json["discount"]?.isNull == false ? json["metadata"]?["promo_code"]?.isNull : nil } - 0.05) < 0.015)
        #expect(share(subscriptions) { json in
            json["status"]?.string == "trialing" ? json["trial_start"]?.isNull : nil
        } > 0)
    }

    private func cents(_ value: JSONValue?) -> Int? {
        guard case .decimal(let text) = value else { return nil }
        let parts = text.split(separator: ".")
        guard parts.count == 2, let whole = Int(parts[0]), let fraction = Int(parts[1]) else { return nil }
        return whole * 100 + fraction
    }

    /// Refunds and disputes name charges of the charges stream of the same seed, with those
    /// charges' customer, merchant and currency, and no larger amounts.
    @Test(arguments: [(PaymentsGenerator.Kind.refunds, 4), (.disputes, 10)])
    func refundsAndDisputesNameChargesThatExist(kind: PaymentsGenerator.Kind, ratio: Int) throws {
        let count = 1000
        var charges: [String: JSONValue] = [:]
        for event in events(.charges, count: count * ratio) {
            let json = try #require(event.json)
            charges[try #require(json["charge_id"]?.string)] = json
        }
        for event in events(kind, count: count) {
            let json = try #require(event.json)
            let chargeID = try #require(json["charge_id"]?.string)
            let charge = try #require(charges[chargeID], "\(kind) names unknown charge \(chargeID)")
            #expect(json["customer_id"] == charge["customer_id"])
            #expect(json["merchant_id"] == charge["merchant_id"])
            if let currency = json["currency"]?.string, let chargeCurrency = charge["currency"]?.string {
                #expect(currency.uppercased() == chargeCurrency.uppercased())
            }
            let amount = try #require(cents(json["amount"]))
            #expect(amount > 0 && amount <= (cents(charge["amount"]) ?? 0))
        }
    }

    @Test func subscriptionsFollowTheirLifecycle() throws {
        var statuses: [String: String] = [:]
        for event in events(.subscriptions, count: 10_000) {
            let json = try #require(event.json)
            let id = try #require(json["subscription_id"]?.string)
            let type = try #require(json["event_type"]?.string)
            let status = try #require(json["status"]?.string)
            if type == "customer.subscription.created" {
                #expect(statuses[id] == nil, "\(id) created twice")
                #expect(["trialing", "active"].contains(status))
            } else {
                let before = try #require(statuses[id], "\(id) changed before it was created")
                #expect(before != "canceled", "\(id) changed after it was canceled")
                #expect((type == "customer.subscription.deleted") == (status == "canceled"))
                #expect(json["canceled_at"]?.isNull == (status != "canceled"))
            }
            statuses[id] = status
        }
        #expect(Set(statuses.values) == ["trialing", "active", "past_due", "canceled"])
    }
}
