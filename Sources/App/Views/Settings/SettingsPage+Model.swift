import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Settings (G1, G2, G5): the library's own settings, its staff and adding someone, a new library,
/// and the server's setting for its administrator. Each of its three forms keeps what was typed after
/// a refusal, with the reason next to its field.
struct SettingsPage: Sendable {
    enum Form: Sendable { case settings, staff, newLibrary }

    static let settingsFields: Set<String> = ["name", "loanPeriodDays", "maxRenewals", "publicCatalog", "catalogIndexable", "timeZone", "renewalDays",
                                               "renewWindowDays", "holdPickupDays", "fineMode", "finePerDay", "fineGraceDays", "fineCap",
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
        let settings = FormState(values: ["name": library.name, "loanPeriodDays": String(library.loanPeriodDays),
                                          "maxRenewals": String(library.maxRenewals), "publicCatalog": library.publicCatalog ? "true" : "", "catalogIndexable": library.catalogIndexable ? "true" : "",
                                          "timeZone": Library.zone(library.timeZone).identifier,
                                          "renewalDays": library.renewalDays.map(String.init) ?? "", "renewWindowDays": library.renewWindowDays.map(String.init) ?? "",
                                          "holdPickupDays": String(library.holdPickupDays),
                                          "fineMode": library.fineMode, "finePerDay": MoneyText.plain(library.finePerDay),
                                          "fineGraceDays": String(library.fineGraceDays), "fineCap": library.fineCap.map(MoneyText.plain) ?? "",
                                          "fineSuspensionDays": String(library.fineSuspensionDays),
                                          "fineBlockAt": library.fineBlockAt.map(MoneyText.plain) ?? "", "currency": library.currency])
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
