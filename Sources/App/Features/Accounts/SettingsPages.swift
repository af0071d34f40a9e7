import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The library's settings, its staff, new libraries and the server's settings, on the settings page.
enum SettingsPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.settings(library: .pattern), use: settings)
        web.post(.settings(library: .pattern), use: saveSettings)
        web.post(.staff(library: .pattern), use: addStaff)
        web.post(.staffRole(library: .pattern, user: .pattern), use: changeRole)
        web.post(.staffRemove(library: .pattern, user: .pattern), use: removeStaff)
        web.post(.staffPassword(library: .pattern, user: .pattern), use: resetPassword)
        web.post(.createLibrary(library: .pattern), use: createLibrary)
        web.post(.server(library: .pattern), use: saveServer)
    }

    @Sendable static func settings(req: Request) async throws -> HTML {
        let ctx = try await req.library(.administer)
        return try await SettingsPage.make(library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    @Sendable static func saveServer(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        _ = try await ServerSettings.update(try req.form(ServerSettingsPatch.self), user: ctx.user,
                                            gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t(.serverSaved))
    }

    static func roleName(_ role: Role, _ t: Strings) -> String {
        switch role {
        case .owner: t(.roleOwner)
        case .librarian: t(.roleLibrarian)
        case .volunteer: t(.roleVolunteer)
        case .viewer: t(.roleViewer)
        }
    }

    /// Runs a settings form's action; a refusal shows the page again with that form as typed.
    static func refusal(_ req: Request, ctx: LibraryContext, form: SettingsPage.Form, fields: Set<String>,
                        _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error where error.isFormRefusal {
            let typed = req.typed(fields)
            let page = try await SettingsPage.refused(form, error, typed: typed, library: ctx, t: req.t, on: req.db)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    /// The library's settings as the page sends them: every field each time, an unticked box is false.
    struct SettingsForm: WebForm, SchemaConstrained {
        var name: String?
        var loanPeriodDays: Int?
        var maxRenewals: Int?
        var publicCatalog: Bool
        var catalogIndexable: Bool
        var kioskAsksPin: Bool?
        var publicFigures: Bool?
        /// Months; empty: for ever.
        var retentionMonths: Int?
        var rosterNightly: Bool?
        var timeZone: String?
        var renewalDays: Int?
        var renewWindowDays: Int?
        var holdPickupDays: Int?
        var maxHoldsPerMember: Int?
        /// Fines: amounts as typed ("0,20"); an empty cap or limit is none.
        var fineMode: FinePolicy.Mode?
        var finePerDay: String?
        var fineGraceDays: Int?
        var fineCap: String?
        var fineSuspensionDays: Int?
        var fineBlockAt: String?
        var currency: String?

        static var schemaConstraints: [String: JSONValue] { LibraryPatch.schemaConstraints }
        static var maxLength: [String: Int] {
            var bounds = defaultBounds(schemaConstraints)
            for money in ["finePerDay", "fineCap", "fineBlockAt"] { bounds[money] = 20 }
            bounds["currency"] = 10
            return bounds
        }

        func patch() throws -> LibraryPatch {
            var groups: [any LibrarySettings] = [
                TimeZoneSettings(timeZone: timeZone),
                LoanSettings(loanPeriodDays: loanPeriodDays, maxRenewals: maxRenewals, renewalDays: renewalDays ?? 0,
                             renewWindowDays: renewWindowDays ?? 0),
                HoldSettings(holdPickupDays: holdPickupDays, maxHoldsPerMember: maxHoldsPerMember),
                PublicCatalogSettings(publicCatalog: publicCatalog, catalogIndexable: catalogIndexable),
                KioskSettings(kioskAsksPin: kioskAsksPin ?? false),
                PublicFigureSettings(publicFigures: publicFigures ?? false),
                SchoolYearSettings(retentionMonths: retentionMonths ?? 0, rosterNightly: rosterNightly ?? false),
            ]
            // The fines fieldset is always sent with its mode; a form without it leaves fines as they are.
            if let fineMode {
                groups.append(FineSettings(fineMode: fineMode, finePerDay: try MoneyText.typed(finePerDay, field: "finePerDay") ?? 0,
                                           fineGraceDays: fineGraceDays ?? 0, fineCap: try MoneyText.typed(fineCap, field: "fineCap") ?? 0,
                                           fineSuspensionDays: fineSuspensionDays,
                                           fineBlockAt: try MoneyText.typed(fineBlockAt, field: "fineBlockAt") ?? 0, currency: currency))
            }
            return LibraryPatch(name: name ?? "", groups)
        }
    }

    @Sendable static func saveSettings(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .settings, fields: SettingsPage.settingsFields) {
            _ = try await Accounts.updateLibrary(try req.form(SettingsForm.self).patch(), in: req.scope(ctx))
            return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t(.settingsSaved))
        }
    }

    @Sendable static func addStaff(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .staff, fields: SettingsPage.staffFields) {
            let added = try await Accounts.addStaff(try req.form(StaffInput.self), passwords: req.passwordHashing, in: req.scope(ctx))
            return req.seeOther(WebRoute.settings(library: ctx.libraryID).path, flash: req.t.format(.staffAdded, added.displayName))
        }
    }

    /// A staff member's own forms on the settings page: role, removal, new password. A refusal (the
    /// last owner, a short password …) is said on the settings page.
    static func staffAction(_ req: Request, _ body: (LibraryContext, StaffDTO) async throws -> String) async throws -> Response {
        let ctx = try await req.library(.administer)
        let userID = try req.uuid("userID")
        guard let member = try await Accounts.staff(of: ctx.libraryID, on: req.db).first(where: { $0.userId == userID }) else {
            throw AccountError.staffNotFound
        }
        return try await req.seeOther(WebRoute.settings(library: ctx.libraryID).path,
                                      refusing: { $0.isFormRefusal || $0.answered.status == .forbidden }) { try await body(ctx, member) }
    }

    @Sendable static func changeRole(req: Request) async throws -> Response {
        try await staffAction(req) { ctx, member in
            let role = try req.form(RoleForm.self).role ?? member.role
            try await Accounts.setRole(member.userId, role: role, in: req.scope(ctx))
            return req.t.format(.roleChanged, member.displayName, roleName(role, req.t))
        }
    }

    @Sendable static func removeStaff(req: Request) async throws -> Response {
        try await staffAction(req) { ctx, member in
            try await Accounts.setRole(member.userId, role: nil, in: req.scope(ctx))
            return req.t.format(.staffRemoved, member.displayName)
        }
    }

    @Sendable static func resetPassword(req: Request) async throws -> Response {
        try await staffAction(req) { ctx, member in
            try await Accounts.resetPassword(member.userId, password: try req.form(PasswordForm.self).password ?? "", passwords: req.passwordHashing, in: req.scope(ctx))
            return req.t.format(.passwordWasReset, member.displayName)
        }
    }

    @Sendable static func createLibrary(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        return try await refusal(req, ctx: ctx, form: .newLibrary, fields: SettingsPage.newLibraryFields) {
            var input = try req.form(LibraryInput.self)
            (input.loanPeriodDays, input.maxRenewals, input.publicCatalog) = (nil, nil, nil)   // the form names the library only
            let created = try await Accounts.createLibrary(input, user: ctx.user, gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.catalog(library: created.id).path, flash: req.t.format(.libraryCreated, created.name))
        }
    }
}

/// Who may make libraries on this server: the settings page sends the API's patch as a form.
extension ServerSettingsPatch: WebForm {}

extension SettingsPages {
    /// A staff member's new role.
    struct RoleForm: WebForm {
        var role: Role?
    }

    /// A staff member's new password, set by an owner (bounded as the account's own: `Accounts`).
    struct PasswordForm: WebForm {
        var password: String?
        static var maxLength: [String: Int] { ["password": 1_000] }
    }
}
