import Foundation
import ShelfmarkCore

/// Fines: off, money per day late, or a suspension from borrowing; amounts in the currency's minor
/// unit (cents).
struct FineSettings: LibrarySettings {
    /// `off` (the default), `money` per day late, or `suspension` from borrowing.
    var fineMode: FinePolicy.Mode?
    /// Money charged per day late after the grace days.
    var finePerDay: Int?
    /// Days late that cost nothing.
    var fineGraceDays: Int?
    /// The most one loan is charged; 0: no cap.
    var fineCap: Int?
    /// Days without borrowing per day late (suspension).
    var fineSuspensionDays: Int?
    /// Lending stops while a member owes this much or more; 0: never.
    var fineBlockAt: Int?
    /// The ISO 4217 code of the library's currency ("EUR", "USD", "GBP").
    var currency: String?

    static var schemaConstraints: [String: JSONValue] {
        var fields: [String: JSONValue] = ["fineGraceDays": Rule.range(FinePolicy.graceRange), "fineSuspensionDays": Rule.range(FinePolicy.suspensionRange),
                                           "currency": ["enum": .array(FinePolicy.currencyCodes.map { .string($0) })]]
        for money in ["finePerDay", "fineCap", "fineBlockAt"] { fields[money] = Rule.range(FinePolicy.amountRange) }
        return fields
    }

    func apply(to library: Library) throws {
        if let mode = fineMode { library.fineMode = mode.rawValue }
        if let amount = try Check.range(finePerDay, FinePolicy.amountRange, field: "finePerDay") { library.finePerDay = amount }
        if let days = try Check.range(fineGraceDays, FinePolicy.graceRange, field: "fineGraceDays") { library.fineGraceDays = days }
        if let cap = try Check.range(fineCap, FinePolicy.amountRange, field: "fineCap") { library.fineCap = cap == 0 ? nil : cap }
        if let days = try Check.range(fineSuspensionDays, FinePolicy.suspensionRange, field: "fineSuspensionDays") {
            library.fineSuspensionDays = days
        }
        if let limit = try Check.range(fineBlockAt, FinePolicy.amountRange, field: "fineBlockAt") { library.fineBlockAt = limit == 0 ? nil : limit }
        if let code = currency {
            let code = code.trimmingCharacters(in: .whitespaces).uppercased()
            guard FinePolicy.isCurrencyCode(code) else { throw LibraryError.unknownCurrency(code) }
            library.currency = code
        }
    }
}
