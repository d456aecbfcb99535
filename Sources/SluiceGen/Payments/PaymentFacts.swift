#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// A Stripe-style opaque id suffix: 24 characters of [0-9A-Za-z] from three random words.
struct OpaqueID {
    let words: (UInt64, UInt64, UInt64)

    init(_ random: inout SplitMix64) {
        words = (random.next(), random.next(), random.next())
    }

    static let alphabet: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// Writes `prefix` and the 24 characters (8 per word) into `out`.
    func write(prefix: StaticString, into out: ByteWriter) {
        out.append(prefix)
        Self.write(words.0, into: out)
        Self.write(words.1, into: out)
        Self.write(words.2, into: out)
    }

    private static func write(_ word: UInt64, into out: ByteWriter) {
        var remaining = word
        for _ in 0 ..< 8 {
            out.append(alphabet[Int(remaining % 62)])
            remaining /= 62
        }
    }
}

/// What a charge is, as a function of the seed and the charge's number: refunds and disputes
/// recompute it to name charges the charges stream (same seed) holds, with their customer,
/// merchant, amount and currency.
struct ChargeFacts {
    let id: OpaqueID
    let customer: Int
    let merchant: Int
    let amountCents: Int64
    let currency: Int
    /// Continues the charge's random stream past the facts, for the rest of its event.
    var random: SplitMix64

    init(seed: UInt64, number: Int64) {
        var random = SplitMix64.stream(seed: seed ^ PaymentVocabulary.chargeSalt, UInt64(number))
        id = OpaqueID(&random)
        customer = random.next(below: PaymentVocabulary.customerCount)
        merchant = random.next(below: PaymentVocabulary.merchants.count)
        // Log-uniform from $1 to about $3,000.
        amountCents = 100 + Int64(pow(10.0, 2 + random.nextUnit() * 3.5))
        currency = PaymentVocabulary.weightedCurrency(&random)
        self.random = random
    }
}

/// Names, codes and pools the payment events draw from.
enum PaymentVocabulary {
    static let chargeSalt: UInt64 = 0x6368_6172_6765_7321
    static let customerSalt: UInt64 = 0x6375_7374_6F6D_6572
    static let merchantSalt: UInt64 = 0x6D65_7263_6861_6E74
    static let subscriptionSalt: UInt64 = 0x7375_6273_6372_6962

    static let customerCount = 5000

    /// Providers of seed 004's use case ("Stripe, Braintree, Adyen, etc.").
    static let providers: [StaticString] = ["stripe", "stripe", "braintree", "adyen"]

    /// The currencies seed 004's cleaning accepts (`UPPER(currency) IN ('USD', 'CAD', 'GBP',
    /// 'EUR', 'JPY')`) and their lowercase and capitalized misspellings.
    static let currencies: [StaticString] = ["USD", "EUR", "GBP", "CAD", "JPY"]
    static let lowercaseCurrencies: [StaticString] = ["usd", "eur", "gbp", "cad", "jpy"]
    static let capitalizedCurrencies: [StaticString] = ["Usd", "Eur", "Gbp", "Cad", "Jpy"]

    static func weightedCurrency(_ random: inout SplitMix64) -> Int {
        let draw = random.next(below: 100)
        return draw < 60 ? 0 : draw < 75 ? 1 : draw < 85 ? 2 : draw < 95 ? 3 : 4
    }

    /// The countries seed 004's data-quality query treats as valid.
    static let countries: [StaticString] = ["US", "CA", "GB", "FR", "DE", "AU"]

    static let merchants: [StaticString] = [
        "Acme Outfitters", "Blue Harbor Coffee", "Northwind Books", "Pixel Forge Games", "Green Leaf Grocers",
        "Summit Fitness", "Lumen Home", "Atlas Travel", "Maple Street Bakery", "Orbit Electronics",
        "Cedar & Pine", "Bright Smile Dental", "Urban Threads", "Quantum Cloud", "Riverbend Pets",
    ]

    static let emailDomains: [StaticString] = ["example.com", "mail.example", "inbox.test", "corp.example", "webmail.test"]
    static let cardBrands: [StaticString] = ["visa", "visa", "visa", "mastercard", "mastercard", "amex", "discover"]
    static let otherMethods: [StaticString] = ["us_bank_account", "sepa_debit", "link"]

    /// Stripe's decline codes with their messages.
    static let failures: [(code: StaticString, message: StaticString)] = [
        ("card_declined", "Your card was declined."),
        ("insufficient_funds", "Your card has insufficient funds."),
        ("expired_card", "Your card has expired."),
        ("incorrect_cvc", "Your card's security code is incorrect."),
        ("processing_error", "An error occurred while processing your card. Try again in a little bit."),
    ]

    /// Writes customer `index`'s id (`cus_` and 24 characters, the same for every event).
    static func writeCustomerID(_ index: Int, seed: UInt64, into out: ByteWriter) {
        var random = SplitMix64.stream(seed: seed ^ customerSalt, UInt64(index))
        OpaqueID(&random).write(prefix: "cus_", into: out)
    }

    /// Writes merchant `index`'s account id (`acct_` and 24 characters).
    static func writeMerchantID(_ index: Int, seed: UInt64, into out: ByteWriter) {
        var random = SplitMix64.stream(seed: seed ^ merchantSalt, UInt64(index))
        OpaqueID(&random).write(prefix: "acct_", into: out)
    }

    /// Writes customer `index`'s email address.
    static func writeEmail(_ index: Int, into out: ByteWriter) {
        out.append("user")
        out.appendDecimal(index)
        out.append(UInt8(ascii: "@"))
        out.append(emailDomains[index % emailDomains.count])
    }

    /// A postal code in the form of `country`'s (a valid index into `countries`).
    static func writePostalCode(country: Int, _ random: inout SplitMix64, into out: ByteWriter) {
        // A pattern: L a letter, D a digit, anything else itself.
        let pattern: StaticString
        switch country {
        case 1: pattern = "LDL DLD"  // CA
        case 2: pattern = "LLD DLL"  // GB
        case 5: pattern = "DDDD"  // AU
        default: pattern = "DDDDD"  // US, FR, DE
        }
        let bytes = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "L"): out.append(UInt8(ascii: "A") + UInt8(random.next(below: 26)))
            case UInt8(ascii: "D"): out.append(UInt8(ascii: "0") + UInt8(random.next(below: 10)))
            default: out.append(byte)
            }
        }
    }
}
