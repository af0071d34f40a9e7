import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Settings: the library's own settings, its staff and adding someone, a new library,
/// and the server's setting for its administrator. Each of its three forms keeps what was typed after
/// a refusal, with the reason next to its field.
struct SettingsPage: Sendable {
    enum Form: Sendable { case settings, staff, newLibrary }

    static let settingsFields: Set<String> = ["name", "loanPeriodDays", "maxRenewals", "publicCatalog", "catalogIndexable", "publicFigures", "retentionMonths", "rosterNightly", "timeZone", "renewalDays",
                                               "renewWindowDays", "holdPickupDays", "maxHoldsPerMember", "kioskAsksPin", "fineMode", "finePerDay", "fineGraceDays", "fineCap",
                                               "fineSuspensionDays", "fineBlockAt", "currency"]
    static let staffFields: Set<String> = ["username", "displayName", "password", "role"]
    static let newLibraryFields: Set<String> = ["name"]

    var libraryID: UUID
    var staff: [StaffDTO]
    var mayCreateLibraries: Bool
    var server: ServerSettingsDTO
    var settings: FormState
    var addStaff = FormState()
    var newLibrary = FormState()
    /// The form that was refused, shown open.
    var refused: Form?

    static func make(library ctx: LibraryContext, on db: any Database) async throws -> SettingsPage {
        guard let library = try await Library.find(ctx.libraryID, on: db) else { throw AccountError.libraryNotFound }
        // Written in a few statements: one literal of them all takes the type checker minutes.
        var values: [String: String] = ["name": library.name, "timeZone": Library.zone(library.timeZone).identifier,
                                         "fineMode": library.fineMode, "currency": library.currency]
        let numbers: [String: Int] = ["loanPeriodDays": library.loanPeriodDays, "maxRenewals": library.maxRenewals,
                                      "holdPickupDays": library.holdPickupDays, "maxHoldsPerMember": library.maxHoldsPerMember,
                                      "fineGraceDays": library.fineGraceDays, "fineSuspensionDays": library.fineSuspensionDays]
        for (key, number) in numbers { values[key] = String(number) }
        let optionalNumbers: [String: Int?] = ["renewalDays": library.renewalDays, "renewWindowDays": library.renewWindowDays,
                                               "retentionMonths": library.retentionMonths]
        for (key, number) in optionalNumbers { values[key] = number.map { String($0) } ?? "" }
        let flags: [String: Bool] = ["publicCatalog": library.publicCatalog, "catalogIndexable": library.catalogIndexable, "publicFigures": library.publicFigures, "rosterNightly": library.rosterNightly,
                                     "kioskAsksPin": library.kioskAsksPIN]
        for (key, on) in flags { values[key] = on ? "true" : "" }
        let money: [String: Int?] = ["finePerDay": library.finePerDay, "fineCap": library.fineCap, "fineBlockAt": library.fineBlockAt]
        for (key, amount) in money { values[key] = amount.map { MoneyText.plain($0) } ?? "" }
        let settings = FormState(values: values)
        return SettingsPage(
            libraryID: ctx.libraryID, staff: try await Accounts.staff(of: ctx.libraryID, on: db),
            mayCreateLibraries: try await ServerSettings.mayCreateLibrary(ctx.user, on: db),
            server: try await ServerSettings.get(for: ctx.user, on: db), settings: settings)
    }

    /// The page again after `form` was refused with `error`, as it was typed (`typed`; passwords are
    /// never sent back).
    static func refused(_ form: Form, _ error: any Error, typed: [String: String], library ctx: LibraryContext, t: Strings,
                        on db: any Database) async throws -> SettingsPage {
        var page = try await make(library: ctx, on: db)
        page.refused = form
        switch form {
        case .settings: page.settings = FormState(values: typed, refusedWith: error, t: t, fields: settingsFields)
        case .staff: page.addStaff = FormState(values: typed.filter { $0.key != "password" }, refusedWith: error, t: t, fields: staffFields)
        case .newLibrary: page.newLibrary = FormState(values: typed, refusedWith: error, t: t, fields: newLibraryFields)
        }
        return page
    }
}
