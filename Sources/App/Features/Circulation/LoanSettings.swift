import Foundation
import ShelfmarkCore

/// How long a loan runs and how it is renewed.
struct LoanSettings: LibrarySettings {
    var loanPeriodDays: Int?
    var maxRenewals: Int?
    /// Days a renewal adds; 0: the loan period.
    var renewalDays: Int?
    /// A loan can be renewed only this many days before its due day; 0: any time.
    var renewWindowDays: Int?

    static var schemaConstraints: [String: JSONValue] {
        ["loanPeriodDays": Rule.range(LoanPolicy.loanPeriodRange), "maxRenewals": Rule.range(Limits.maxRenewals),
         "renewalDays": Rule.range(0...Limits.renewalDays.upperBound), "renewWindowDays": Rule.range(Limits.renewWindowDays)]
    }

    func apply(to library: Library) throws {
        if let days = try Check.range(loanPeriodDays, LoanPolicy.loanPeriodRange, field: "loanPeriodDays") { library.loanPeriodDays = days }
        if let renewals = try Check.range(maxRenewals, Limits.maxRenewals, field: "maxRenewals") { library.maxRenewals = renewals }
        if let days = try Check.range(renewalDays, 0...Limits.renewalDays.upperBound, field: "renewalDays") {
            library.renewalDays = days == 0 ? nil : days
        }
        if let days = try Check.range(renewWindowDays, Limits.renewWindowDays, field: "renewWindowDays") {
            library.renewWindowDays = days == 0 ? nil : days
        }
    }
}
