import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkMail

extension RemindersPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let (settings, server, test) = (settings, server, test)
        return Layout.page(page, title: t(.remindersTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.remindersTitle)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.remindersIntro)) }
            if failedLastDay > 0 {
                H.el(.p, [.class: "flash error", .role: "alert"]) {
                    H.link(t.format(.mailFailedBanner, t.number(failedLastDay)), WebRoute.mailLog(library: lib).path(query: [("failed", "1")]))
                }
            }
            H.el(.p, [.class: "status-line"]) {
                if enabled, let next { EscapedText(t.format(.remindersNextRun, t.dateTime(next))) } else { EscapedText(t(.remindersOffNote)) }
                EscapedText(" · ")
                H.link(t(.sentMessagesLink), WebRoute.mailLog(library: lib).path)
            }
            if withoutEmail > 0 {
                H.el(.p, [:]) {
                    H.link(t.format(.printLetters, t.number(withoutEmail)), APILink.reminderLetters(library: lib).path, cls: "button secondary")
                }
            }
            H.form(WebRoute.reminders(library: lib).path, csrf: page.csrf, attrs: [.class: "card", .id: "settings"]) {
                if let general = settings.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.el(.div, [.class: settings.errors["enabled"] == nil ? "field" : "field invalid"]) {
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "enabled", .value: "true", .checked: settings["enabled"] == "true" ? "" : nil])
                        EscapedText(" " + t(.remindersOnField))
                    }
                    if let error = settings.errors["enabled"] { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
                }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-hour"]) { EscapedText(t(.reminderHourField)) }
                    H.el(.select, [.id: "f-hour", .name: "hour"]) {
                        for hour in ReminderPolicy.hourRange {
                            H.el(.option, [.value: String(hour), .selected: settings["hour"] == String(hour) ? "" : nil]) {
                                EscapedText(String(format: "%02d:00", hour))
                            }
                        }
                    }
                }
                H.field(t(.reminderBeforeField), name: "beforeDays", type: "number", value: settings["beforeDays"], hint: t(.reminderBeforeHint),
                        error: settings.errors["beforeDays"], extra: [.min: "0", .max: String(ReminderPolicy.beforeRange.upperBound)])
                for (i, label) in [L.reminderOverdue1Field, .reminderOverdue2Field, .reminderOverdue3Field].enumerated() {
                    let name = "overdueDays\(i + 1)"
                    H.field(t(label), name: name, type: "number", value: settings[name], hint: i == 2 ? t(.reminderOverdueHint) : nil,
                            error: settings.errors[name], extra: [.min: "1", .max: String(ReminderPolicy.overdueRange.upperBound)])
                }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-language"]) { EscapedText(t(.reminderLanguageField)) }
                    H.el(.select, [.id: "f-language", .name: "language"]) {
                        for lang in languages {
                            H.el(.option, [.value: lang.rawValue, .selected: settings["language"] == lang.rawValue ? "" : nil, .lang: lang.rawValue]) {
                                EscapedText(lang.nativeName)
                            }
                        }
                    }
                }
                H.field(t(.reminderContactField), name: "contact", value: settings["contact"], hint: t(.reminderContactHint),
                        error: settings.errors["contact"], extra: [.maxlength: String(Reminders.maxContact)])
                H.button(t(.save))
            }

            H.el(.h2, [.id: "server"]) { EscapedText(t(.mailServerHeading)) }
            if !ownServer {
                if let effective { H.el(.p, [.class: "hint"]) { EscapedText(t.format(.mailServerInstallation, effective.host)) } }
                else { H.el(.p, [.class: "hint"]) { EscapedText(t(.mailServerNone)) } }
            }
            serverForm(WebRoute.mailServer(library: lib).path, server, prefix: "f-", page: page)
            if ownServer {
                H.form(WebRoute.mailServerRemove(library: lib).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                    H.button(t(.mailServerRemove), kind: "secondary")
                }
            }

            if isAdmin {
                H.el(.h2, [.id: "all"]) { EscapedText(t(.mailServerAllHeading)) }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.mailServerAllHint)) }
                serverForm(WebRoute.installationMailServer(library: lib).path, installation, prefix: "f-all-", page: page,
                           remove: hasInstallationServer)
            }

            H.el(.h2, [.id: "test"]) { EscapedText(t(.mailTestHeading)) }
            H.form(WebRoute.mailTest(library: lib).path, csrf: page.csrf, attrs: [.class: "card"]) {
                if let general = test.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.mailTestTo), name: "to", type: "email", value: test["to"], required: true, error: test.errors["to"],
                        extra: [.autocomplete: "email"])
                H.button(t(.mailTestSend), kind: "secondary")
            }

            H.el(.h2, [.id: "texts"]) { EscapedText(t(.templatesHeading)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.templatesIntro)) }
            H.el(.ul, [.class: "template-list"]) {
                for kind in MailKind.allCases where kind.editable {
                    H.el(.li, [:]) {
                        H.el(.span, [.class: "name"]) { EscapedText(Self.kindName(kind, t)) }
                        H.el(.span, [.class: "chips"]) {
                            for lang in languages {
                                let changed = edited.contains(.init(kind: kind, language: lang.rawValue))
                                H.el(.a, [.class: "chip", .href: WebRoute.mailTemplate(library: lib).path(query: [("kind", kind.rawValue), ("lang", lang.rawValue)]),
                                          .lang: lang.rawValue]) {
                                    EscapedText(lang.nativeName + (changed ? " · " + t(.templateEdited) : ""))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A mail server's form (the library's, or the installation's with its own ids and a remove button).
    func serverForm(_ action: String, _ server: FormState, prefix: String, page: PageContext, remove: Bool = false) -> any Component {
        let t = page.t
        return H.form(action, csrf: page.csrf, attrs: [.class: "card"]) {
            if let general = server.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
            H.field(t(.mailHostField), name: "host", value: server["host"], required: true, id: prefix + "host", error: server.errors["host"],
                    extra: [.autocomplete: "off", .autocapitalize: "none", .maxlength: String(MailServers.maxHost)])
            H.field(t(.mailPortField), name: "port", type: "number", value: server["port"], required: true, id: prefix + "port",
                    error: server.errors["port"], extra: [.min: "1", .max: "65535"])
            H.el(.div, [.class: server.errors["security"] == nil ? "field" : "field invalid"]) {
                H.el(.label, [.for: prefix + "security"]) { EscapedText(t(.mailSecurityField)) }
                H.el(.select, [.id: prefix + "security", .name: "security"]) {
                    for (value, label) in [(SMTPServer.Security.starttls, L.mailSecurityStarttls), (.tls, .mailSecurityTls), (.none, .mailSecurityNone)] {
                        H.el(.option, [.value: value.rawValue, .selected: server["security"] == value.rawValue ? "" : nil]) { EscapedText(t(label)) }
                    }
                }
                if let error = server.errors["security"] { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
            }
            H.field(t(.mailUserField), name: "username", value: server["username"], id: prefix + "username", error: server.errors["username"],
                    extra: [.autocomplete: "off", .autocapitalize: "none"])
            H.field(t(.mailPasswordField), name: "password", type: "password", hint: t(.mailPasswordHint), id: prefix + "password",
                    error: server.errors["password"], extra: [.autocomplete: "new-password"])
            H.field(t(.mailSenderField), name: "senderAddress", type: "email", value: server["senderAddress"], required: true,
                    id: prefix + "senderAddress", error: server.errors["senderAddress"], extra: [.autocomplete: "off"])
            H.field(t(.mailSenderNameField), name: "senderName", value: server["senderName"], id: prefix + "senderName", error: server.errors["senderName"])
            H.el(.div, [.class: "actions"]) {
                H.button(t(.save), attrs: [.name: "action", .value: "save"])
                if remove { H.button(t(.mailServerRemove), kind: "secondary", attrs: [.name: "action", .value: "remove"]) }
            }
        }
    }
}
