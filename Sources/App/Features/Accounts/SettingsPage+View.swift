import Foundation
import Plot
import ShelfmarkCore

extension SettingsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (settings, addStaff, newLibrary) = (settings, addStaff, newLibrary)
        return Layout.page(page, title: t(.settings)) {
            H.el(.h1, [:]) { EscapedText(t(.settings)) }
            H.form(WebRoute.settings(library: libraryID).path, csrf: page.csrf, attrs: [.class: "card"]) {
                if let general = settings.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.libraryName), name: "name", value: settings["name"], required: true, error: settings.errors["name"])
                H.field(t(.loanPeriod), name: "loanPeriodDays", type: "number", value: settings["loanPeriodDays"], required: true,
                        error: settings.errors["loanPeriodDays"],
                        extra: [.min: String(LoanPolicy.loanPeriodRange.lowerBound), .max: String(LoanPolicy.loanPeriodRange.upperBound)])
                H.field(t(.maxRenewals), name: "maxRenewals", type: "number", value: settings["maxRenewals"], required: true,
                        error: settings.errors["maxRenewals"],
                        extra: [.min: String(Limits.maxRenewals.lowerBound), .max: String(Limits.maxRenewals.upperBound)])
                H.field(t(.renewalDaysField), name: "renewalDays", type: "number", value: settings["renewalDays"], hint: t(.renewalDaysHint),
                        error: settings.errors["renewalDays"], extra: [.min: "0", .max: String(Limits.renewalDays.upperBound)])
                H.field(t(.renewWindowField), name: "renewWindowDays", type: "number", value: settings["renewWindowDays"], hint: t(.renewWindowHint),
                        error: settings.errors["renewWindowDays"], extra: [.min: "0", .max: String(Limits.renewWindowDays.upperBound)])
                H.field(t(.holdPickupField), name: "holdPickupDays", type: "number", value: settings["holdPickupDays"], required: true,
                        error: settings.errors["holdPickupDays"],
                        extra: [.min: String(Limits.holdPickupDays.lowerBound), .max: String(Limits.holdPickupDays.upperBound)])
                H.field(t(.maxHoldsField), name: "maxHoldsPerMember", type: "number", value: settings["maxHoldsPerMember"], required: true,
                        error: settings.errors["maxHoldsPerMember"],
                        extra: [.min: String(Limits.holdsPerMember.lowerBound), .max: String(Limits.holdsPerMember.upperBound)])
                H.el(.div, [.class: settings.errors["timeZone"] == nil ? "field" : "field invalid"]) {
                    H.el(.label, [.for: "f-timeZone"]) { EscapedText(t(.timeZoneField)) }
                    H.el(.select, [.id: "f-timeZone", .name: "timeZone", .ariaDescribedby: "f-timeZone-hint"]) {
                        let chosen = settings["timeZone"] ?? TimeZone.current.identifier
                        for zone in Self.zones(including: chosen) {
                            H.el(.option, [.value: zone, .selected: zone == chosen ? "" : nil]) { EscapedText(zone.replacingOccurrences(of: "_", with: " ")) }
                        }
                    }
                    if let error = settings.errors["timeZone"] { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
                    H.el(.p, [.class: "hint", .id: "f-timeZone-hint"]) { EscapedText(t(.timeZoneHint)) }
                }
                finesFieldset(settings, t: t)
                H.field(t(.retentionField), name: "retentionMonths", type: "number", value: settings["retentionMonths"],
                        hint: t.format(.retentionHint, t.number(Retention.recommended)), error: settings.errors["retentionMonths"],
                        extra: [.min: "0", .max: String(Retention.range.upperBound)])
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "rosterNightly", .value: "true", .checked: settings["rosterNightly"] == "true" ? "" : nil,
                                        .ariaDescribedby: "f-roster-nightly-hint"])
                        EscapedText(" " + t(.rosterNightlyField))
                    }
                    H.el(.p, [.class: "hint", .id: "f-roster-nightly-hint"]) {
                        EscapedText(t.format(.rosterNightlyHint, RosterFolder.folder(library: libraryID, root: RosterFolder.root())))
                    }
                }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "publicCatalog", .value: "true", .checked: settings["publicCatalog"] == "true" ? "" : nil])
                        EscapedText(" " + t(.publicCatalog))
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "catalogIndexable", .value: "true", .checked: settings["catalogIndexable"] == "true" ? "" : nil])
                        EscapedText(" " + t(.catalogIndexable))
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "publicFigures", .value: "true", .checked: settings["publicFigures"] == "true" ? "" : nil])
                        EscapedText(" " + t(.publicFiguresField))
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "kioskAsksPin", .value: "true", .checked: settings["kioskAsksPin"] == "true" ? "" : nil])
                        EscapedText(" " + t(.kioskAsksPinField))
                    }
                    if settings["publicCatalog"] == "true" {
                        H.el(.p, [.class: "hint"]) {
                            EscapedText(t(.publicCatalogAt) + " ")
                            H.link(WebRoute.publicCatalog(library: page.libraryID).path, WebRoute.publicCatalog(library: page.libraryID).path)
                        }
                    }
                }
                H.button(t(.save))
            }
            H.el(.h2, [:]) { EscapedText(t(.staff)) }
            H.el(.ul, [.class: "members"]) {
                for s in staff {
                    let id = s.userId.uuidString
                    H.el(.li, [.class: "staff-row"]) {
                        H.el(.div, [.class: "member-row"]) {
                            H.el(.span, [.class: "name"]) { EscapedText(s.displayName) }
                            H.el(.span, [.class: "card-id"]) { EscapedText(s.username + " · " + SettingsPages.roleName(s.role, t)) }
                        }
                        if s.userId != page.user?.id {
                            H.el(.details, [:]) {
                                H.el(.summary, [:]) { EscapedText(t(.changeRole) + " · " + t(.resetPassword)) }
                                H.form(WebRoute.staffRole(library: libraryID, user: s.userId).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.el(.div, [.class: "field"]) {
                                        H.el(.label, [.for: "f-role-" + id]) { EscapedText(t(.role)) }
                                        H.el(.select, [.id: "f-role-" + id, .name: "role"]) {
                                            for role in [Role.viewer, .volunteer, .librarian, .owner] {
                                                H.el(.option, [.value: role.rawValue, .selected: role == s.role ? "" : nil]) { EscapedText(SettingsPages.roleName(role, t)) }
                                            }
                                        }
                                    }
                                    H.button(t(.changeRole), kind: "quiet")
                                }
                                H.form(WebRoute.staffPassword(library: libraryID, user: s.userId).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.field(t(.newPassword), name: "password", type: "password", required: true, id: "f-password-" + id,
                                            extra: [.minlength: "8", .autocomplete: "new-password"])
                                    H.button(t(.resetPassword), kind: "quiet")
                                }
                                H.form(WebRoute.staffEmail(library: libraryID, user: s.userId).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.field(t(.staffSchoolEmail), name: "email", type: "email", value: s.email, hint: t(.staffSchoolEmailHint),
                                            id: "f-email-" + id, extra: [.autocomplete: "off"])
                                    H.button(t(.save), kind: "quiet")
                                }
                                H.form(WebRoute.staffRemove(library: libraryID, user: s.userId).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.button(t(.removeStaff), kind: "danger", attrs: [.ariaLabel: t(.removeStaff) + ": " + s.displayName])
                                }
                            }
                        } else {
                            // Your own school e-mail, for the school's sign-in.
                            H.el(.details, [:]) {
                                H.el(.summary, [:]) { EscapedText(t(.staffSchoolEmail)) }
                                H.form(WebRoute.staffEmail(library: libraryID, user: s.userId).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.field(t(.staffSchoolEmail), name: "email", type: "email", value: s.email, hint: t(.staffSchoolEmailHint),
                                            id: "f-email-" + id, extra: [.autocomplete: "email"])
                                    H.button(t(.save), kind: "quiet")
                                }
                            }
                        }
                    }
                }
            }
            H.el(.details, [.class: "card", .open: refused == .staff ? "" : nil]) {
                H.el(.summary, [:]) { EscapedText(t(.addStaff)) }
                H.form(WebRoute.staff(library: libraryID).path, csrf: page.csrf) {
                    if let general = addStaff.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                    H.field(t(.username), name: "username", value: addStaff["username"], required: true, error: addStaff.errors["username"],
                            extra: [.autocomplete: "off", .autocapitalize: "none"])
                    H.field(t(.yourName), name: "displayName", value: addStaff["displayName"], error: addStaff.errors["displayName"])
                    H.field(t(.password), name: "password", type: "password", hint: t(.staffPasswordHint), required: true,
                            error: addStaff.errors["password"], extra: [.autocomplete: "new-password", .minlength: "8"])
                    H.el(.div, [.class: "field"]) {
                        H.el(.label, [.for: "f-role"]) { EscapedText(t(.role)) }
                        H.el(.select, [.id: "f-role", .name: "role"]) {
                            for role in [Role.librarian, .volunteer, .viewer, .owner] {
                                H.el(.option, [.value: role.rawValue, .selected: addStaff["role"] == role.rawValue ? "" : nil]) {
                                    EscapedText(SettingsPages.roleName(role, t))
                                }
                            }
                        }
                    }
                    H.button(t(.addStaff))
                }
            }
            if mayCreateLibraries {
                H.el(.details, [.class: "card", .open: refused == .newLibrary ? "" : nil]) {
                    H.el(.summary, [:]) { EscapedText(t(.newLibrary)) }
                    H.form(WebRoute.createLibrary(library: libraryID).path, csrf: page.csrf) {
                        if let general = newLibrary.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                        H.field(t(.libraryName), name: "name", value: newLibrary["name"], required: true, id: "f-new-library",
                                error: newLibrary.errors["name"])
                        H.button(t(.newLibrary))
                    }
                }
            }
            if server.youAreAdmin == true {
                H.el(.h2, [:]) { EscapedText(t(.serverSettings)) }
                H.form(WebRoute.server(library: libraryID).path, csrf: page.csrf, attrs: [.class: "card"]) {
                    H.el(.fieldset, [.class: "field"]) {
                        H.el(.legend, [:]) { EscapedText(t(.libraryCreation)) }
                        for (value, label) in [(LibraryCreation.staff, t(.creationStaff)), (.admin, t(.creationAdmin))] {
                            H.el(.label, [.class: "pick"]) {
                                H.void(.input, [.type: "radio", .name: "libraryCreation", .value: value.rawValue,
                                                 .checked: server.libraryCreation == value ? "" : nil])
                                EscapedText(" " + label)
                            }
                        }
                    }
                    H.button(t(.save))
                }
            }
        }
    }

    /// The time zones offered: the regions' zones (Europe/Dublin …), and the chosen one whatever it is.
    static func zones(including chosen: String) -> [String] {
        let regions = ["Africa/", "America/", "Antarctica/", "Asia/", "Atlantic/", "Australia/", "Europe/", "Indian/", "Pacific/"]
        var zones = TimeZone.knownTimeZoneIdentifiers.filter { id in regions.contains { id.hasPrefix($0) } }
        if !zones.contains(chosen) { zones.append(chosen) }
        if !zones.contains("UTC") { zones.append("UTC") }
        return zones.sorted()
    }
}

extension SettingsPage {
    /// Fines: what a late return costs — nothing, money per day, or days without borrowing.
    func finesFieldset(_ settings: FormState, t: Strings) -> any Component {
        H.el(.fieldset, [.id: "fines"]) {
            H.el(.legend, [:]) { EscapedText(t(.finesHeading)) }
            H.el(.div, [.class: "field"]) {
                H.el(.label, [.for: "f-fineMode"]) { EscapedText(t(.fineModeField)) }
                H.el(.select, [.id: "f-fineMode", .name: "fineMode"]) {
                    for (mode, label) in [(FinePolicy.Mode.off, L.fineModeOff), (.money, .fineModeMoney), (.suspension, .fineModeSuspension)] {
                        H.el(.option, [.value: mode.rawValue, .selected: settings["fineMode"] == mode.rawValue ? "" : nil]) { EscapedText(t(label)) }
                    }
                }
            }
            H.field(t(.finePerDayField), name: "finePerDay", value: settings["finePerDay"].map(t.moneyField), error: settings.errors["finePerDay"],
                    extra: [.inputmode: "decimal", .autocomplete: "off"])
            H.field(t(.fineGraceField), name: "fineGraceDays", type: "number", value: settings["fineGraceDays"], error: settings.errors["fineGraceDays"],
                    extra: [.min: "0", .max: String(FinePolicy.graceRange.upperBound)])
            H.field(t(.fineCapField), name: "fineCap", value: settings["fineCap"].map(t.moneyField), hint: t(.fineCapHint), error: settings.errors["fineCap"],
                    extra: [.inputmode: "decimal", .autocomplete: "off"])
            H.field(t(.fineSuspensionField), name: "fineSuspensionDays", type: "number", value: settings["fineSuspensionDays"],
                    error: settings.errors["fineSuspensionDays"],
                    extra: [.min: String(FinePolicy.suspensionRange.lowerBound), .max: String(FinePolicy.suspensionRange.upperBound)])
            H.field(t(.fineBlockField), name: "fineBlockAt", value: settings["fineBlockAt"].map(t.moneyField), hint: t(.fineBlockHint), error: settings.errors["fineBlockAt"],
                    extra: [.inputmode: "decimal", .autocomplete: "off"])
            H.field(t(.currencyField), name: "currency", value: settings["currency"], hint: t(.currencyHint), error: settings.errors["currency"],
                    extra: [.maxlength: "3", .autocapitalize: "characters", .pattern: "[A-Za-z]{3}"])
        }
    }
}

