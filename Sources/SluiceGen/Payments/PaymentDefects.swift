/// The data-quality defects seed 004's JR templates build into the payment events, each with
/// the probability that an event where it can occur has it. The seed lists them per template:
///
/// - charges: "null vs NULL vs 'null' variations", "invalid country codes (e.g., "342",
///   "999")", "missing postal codes", "mixed case currencies (usd, EUR, gbp)";
/// - refunds: "null status fields", "inconsistent reason formats", "missing support ticket IDs";
/// - disputes: "missing evidence metadata", "null currency fields", "incomplete case numbers";
/// - subscriptions: "null trial dates", "missing promo codes", "inconsistent interval formats".
///
/// The null spellings apply to every member that has no value (a succeeded charge's
/// `failure_code`, say): instead of JSON `null` it reads `"NULL"`, `"null"` or `""` — the three
/// the seed's cleaning SQL maps back to NULL (`failure_code IN ('null', 'NULL', '')`).
/// Mixed-case currencies apply to every kind.
package struct PaymentDefects: Sendable, Equatable {
    /// An absent value spelled as a string: `"NULL"`, `"null"` or `""`.
    package var nullSpelling: Double
    /// `card_country` / `billing_country` a three-digit number instead of an ISO code.
    package var invalidCountry: Double
    /// `billing_postal_code` null where the address has one.
    package var missingPostalCode: Double
    /// `currency` lowercase (`usd`) or capitalized (`Usd`) instead of `USD`.
    package var mixedCaseCurrency: Double
    /// A refund's `status` null.
    package var nullStatus: Double
    /// A refund's `reason` as words (`Requested By Customer`), upper case or with hyphens.
    package var reasonFormat: Double
    /// A refund's `metadata.support_ticket_id` null.
    package var missingSupportTicket: Double
    /// A dispute's `metadata.customer_contacted` and `evidence_submitted` null.
    package var missingEvidence: Double
    /// A dispute's `currency` null.
    package var nullCurrency: Double
    /// A dispute's `metadata.case_number` cut short (`CASE-12`).
    package var incompleteCaseNumber: Double
    /// A trialing subscription's `trial_start` and `trial_end` null.
    package var nullTrialDates: Double
    /// A discounted subscription's `metadata.promo_code` null.
    package var missingPromoCode: Double
    /// `interval` as `monthly`, `MONTH`, `Month` or `1 month` instead of `month`.
    package var intervalFormat: Double

    /// Every defect at `rate`.
    package init(rate: Double) {
        nullSpelling = rate
        invalidCountry = rate
        missingPostalCode = rate
        mixedCaseCurrency = rate
        nullStatus = rate
        reasonFormat = rate
        missingSupportTicket = rate
        missingEvidence = rate
        nullCurrency = rate
        incompleteCaseNumber = rate
        nullTrialDates = rate
        missingPromoCode = rate
        intervalFormat = rate
    }

    /// No defects: clean data.
    package static let none = PaymentDefects(rate: 0)
    /// The default: each defect in about 2 % of the events where it can occur.
    package static let standard = PaymentDefects(rate: 0.02)
}
