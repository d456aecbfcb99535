import Testing
@testable import SluiceCore

@Suite("Decimal arithmetic details")
struct DecimalTests {
    func decimal(_ text: String) -> Decimal { try! Decimal(parsingText: text) }

    @Test func divisionScaleFollowsSelectDivScale() {
        #expect(Decimal.divisionScale(decimal("1"), decimal("3")) == 20)
        #expect(Decimal.divisionScale(decimal("10.5"), decimal("3")) == 16)
        #expect(Decimal.divisionScale(decimal("1"), decimal("7.000")) == 20)
        #expect(Decimal.divisionScale(decimal("1e-30"), decimal("3")) == 48)
        #expect(decimal("1e-30").baseTenThousandLead == (-8, 100))
        #expect(decimal("12345.678").baseTenThousandLead == (1, 1))
    }

    @Test func coercionRoundsAndReportsOverflowLikeApplyTypmod() throws {
        #expect(try decimal("1.235").coerced(precision: 5, scale: 2).textForm == "1.24")
        #expect(try decimal("2").coerced(precision: 5, scale: 2).textForm == "2.00")
        #expect(throws: SluiceError(.numericValueOutOfRange, "numeric field overflow",
                                    detail: "A field with precision 5, scale 2 must round to an absolute value less than 10^3.")) {
            try decimal("12345.678").coerced(precision: 5, scale: 2)
        }
        #expect(throws: SluiceError(.numericValueOutOfRange, "numeric field overflow",
                                    detail: "A field with precision 2, scale 2 must round to an absolute value less than 1.")) {
            try decimal("0.995").coerced(precision: 2, scale: 2)
        }
    }

    @Test func errorsCarryPostgresCodes() {
        #expect(throws: SluiceError(.divisionByZero, "division by zero")) { try Decimal.dividing(decimal("1"), .zero) }
        #expect(throws: SluiceError(.divisionByZero, "division by zero")) { try Decimal.remainder(decimal("1"), .zero) }
        #expect(throws: SluiceError(.numericValueOutOfRange, "value overflows numeric format")) {
            try Decimal.multiplying(decimal("1e20"), decimal("1e20"))
        }
        #expect(throws: SluiceError(.numericValueOutOfRange, "bigint out of range")) { try decimal("9223372036854775807.5").int64Value() }
    }

    @Test func comparisonAndHashingIgnoreScale() {
        #expect(decimal("1.5") == decimal("1.50"))
        #expect(Set([decimal("1.5"), decimal("1.50"), decimal("2")]).count == 2)
        #expect(decimal("-0.001") < decimal("0"))
        #expect(decimal("1e30") > decimal("0.000000000000000000001"))
    }

    @Test func doubleConversions() throws {
        #expect(decimal("0.1").doubleValue == 0.1)
        #expect(Decimal(exactly: 0.5)?.textForm == "0.5")
        #expect(Decimal(exactly: 0.1)?.textForm == "0.1")
        #expect(Decimal(exactly: .infinity) == nil)
        #expect(try Decimal(Double.nan).isNaN)
        #expect(try Decimal(-Double.infinity) == .negativeInfinity)
        #expect(Decimal.infinity.doubleValue == .infinity)
        #expect(Decimal.nan.doubleValue.isNaN)
        #expect(throws: SluiceError.self) { try Decimal.infinity.int64Value() }
    }

    @Test func specialValuesOrderAndCompareAsPostgres() throws {
        let ordered = [Decimal.negativeInfinity, decimal("-1e30"), decimal("0"), decimal("1e30"), .infinity, .nan]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect(Decimal.compare(a, b) == (i < j ? -1 : (i == j ? 0 : 1)))
            }
        }
        #expect(Decimal.nan == decimal("NaN"))
        #expect(Set([Decimal.nan, decimal("nan"), .zero, .infinity]).count == 3)
        #expect(decimal(" -Inf ").textForm == "-Infinity")
        #expect(throws: SluiceError.self) { try Decimal(parsingText: "-NaN") }
        #expect(try Decimal.adding(.infinity, .negativeInfinity).isNaN)
        #expect(try Decimal.multiplying(.negativeInfinity, decimal("-2")) == .infinity)
        #expect(try Decimal.dividing(decimal("5"), .infinity) == .zero)
        #expect(throws: SluiceError.self) { try Decimal.dividing(.infinity, .zero) }
        #expect(try Decimal.remainder(decimal("-7.5"), .infinity).textForm == "-7.5")
        #expect(try Decimal.infinity.rounded(scale: 2) == .infinity)
        #expect(throws: SluiceError.self) { try Decimal.infinity.coerced(precision: 10, scale: 2) }
    }

    @Test func negationAndMagnitude() {
        #expect(decimal("1.50").negated.textForm == "-1.50")
        #expect(decimal("-2.5").magnitude.textForm == "2.5")
        #expect(decimal("-0.001").signum == -1)
    }
}
