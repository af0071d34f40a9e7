import Foundation

/// What a library charges for a late return: nothing (the default), money per day late, or days
/// of suspension from borrowing. Amounts are in the currency's minor unit (cents), as integers, so
/// no sum is ever rounded.
public struct FinePolicy: Equatable, Sendable {
    public enum Mode: String, Codable, Sendable, CaseIterable {
        case off, money, suspension
    }

    public static let amountRange = 0...1_000_000
    public static let graceRange = 0...60
    public static let suspensionRange = 1...30

    public var mode: Mode
    /// Charged per overdue day after the grace days (money).
    public var perDay: Int
    /// Days late that cost nothing.
    public var graceDays: Int
    /// The most one loan can be charged (money); nil: no cap.
    public var cap: Int?
    /// Days without borrowing per overdue day after the grace days (suspension).
    public var suspensionDaysPerDay: Int
    /// New loans are refused while the member owes this much or more; nil: never.
    public var blockAt: Int?
    /// ISO 4217 code the amounts are in ("EUR").
    public var currency: String

    public init(mode: Mode = .off, perDay: Int = 0, graceDays: Int = 0, cap: Int? = nil, suspensionDaysPerDay: Int = 1,
                blockAt: Int? = nil, currency: String = "EUR") {
        self.mode = mode
        self.perDay = perDay
        self.graceDays = graceDays
        self.cap = cap
        self.suspensionDaysPerDay = suspensionDaysPerDay
        self.blockAt = blockAt
        self.currency = currency
    }

    /// Days that count: those late beyond the grace days.
    public func chargeableDays(overdue days: Int) -> Int { max(0, days - graceDays) }

    /// The charge for a loan returned `days` late (money), capped per loan; 0 in any other mode.
    public func charge(overdue days: Int) -> Int {
        guard mode == .money else { return 0 }
        let (product, overflow) = chargeableDays(overdue: days).multipliedReportingOverflow(by: perDay)
        let amount = overflow ? Int.max : product
        return cap.map { min($0, amount) } ?? amount
    }

    /// Days of suspension for a loan returned `days` late (suspension); 0 in any other mode.
    public func suspension(overdue days: Int) -> Int {
        guard mode == .suspension else { return 0 }
        return min(chargeableDays(overdue: days) * suspensionDaysPerDay, 3_650)
    }

    /// Whether a member who owes `balance` may borrow.
    public func blocks(balance: Int) -> Bool {
        guard let blockAt, blockAt > 0 else { return false }
        return balance >= blockAt
    }

    /// The ISO 4217 codes a library can keep its fines in.
    public static let currencyCodes: [String] = Locale.commonISOCurrencyCodes.filter { $0.count == 3 }.sorted()

    /// Whether `code` is one of `currencyCodes`.
    public static func isCurrencyCode(_ code: String) -> Bool { currencyCodes.contains(code) }
}

/// Money as people type and read it, in a currency's minor unit (cents).
public enum MoneyText {
    /// "2", "2.5", "2,50", "0.05" → cents; nil for anything else (more than two decimals, a sign, letters).
    public static func cents(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: trimmed.contains(",") ? "," : ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty || parts.count == 2,
              whole.allSatisfy(\.isASCIIDigit), whole.count <= 9 else { return nil }
        var fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 2, fraction.allSatisfy(\.isASCIIDigit), parts.count == 1 || !fraction.isEmpty else { return nil }
        while fraction.count < 2 { fraction += "0" }
        return (Int(whole) ?? 0) * 100 + Int(fraction)!
    }

    /// "2.50" — the amount as a plain decimal, for a form field.
    public static func plain(_ cents: Int) -> String {
        let sign = cents < 0 ? "-" : ""
        let value = abs(cents)
        let fraction = value % 100
        return "\(sign)\(value / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
