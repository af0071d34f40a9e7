import Foundation
import Plot
import ShelfmarkCore

extension RosterPage {
    static func fieldLabel(_ field: StudentList.Field, _ t: Strings) -> String {
        switch field {
        case .number: t(.rosterColNumber)
        case .firstName: t(.firstName)
        case .lastName: t(.lastName)
        case .name: t(.rosterColName)
        case .grade: t(.grade)
        case .email: t(.email)
        case .guardianEmail: t(.rosterColGuardian)
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.rosterTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.rosterTitle)) }
            H.el(.p, [:]) { EscapedText(t(.rosterIntro)) }
            H.el(.section, [.class: "card"]) {
                H.form(WebRoute.roster(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data"]) {
                    if let error { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(error) } }
                    H.el(.div, [.class: error == nil ? "field" : "field invalid"]) {
                        H.el(.label, [.for: "f-roster-file"]) { EscapedText(t(.rosterFile)) }
                        H.void(.input, [.type: "file", .id: "f-roster-file", .name: "file", .accept: ".zip,.csv,.tsv,.txt,application/zip,text/csv",
                                        .required: "", .ariaDescribedby: "f-roster-file-hint"])
                        H.el(.p, [.class: "hint", .id: "f-roster-file-hint"]) { EscapedText(t(.rosterFileHint)) }
                    }
                    H.el(.fieldset, [.class: "quick-picks"]) {
                        H.el(.legend, [:]) { EscapedText(t(.rosterMode)) }
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "radio", .name: "mode", .value: RosterFile.Mode.full.rawValue, .checked: ""])
                            EscapedText(" " + t(.rosterModeFull))
                        }
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "radio", .name: "mode", .value: RosterFile.Mode.delta.rawValue])
                            EscapedText(" " + t(.rosterModeDelta))
                        }
                    }
                    H.el(.details, [:]) {
                        H.el(.summary, [:]) { EscapedText(t(.rosterColumns)) }
                        H.el(.p, [.class: "hint"]) { EscapedText(t(.rosterColumnsHint)) }
                        for field in StudentList.Field.allCases {
                            H.field(Self.fieldLabel(field, t), name: field.rawValue + "Column", extra: [.autocomplete: "off"])
                        }
                    }
                    H.button(t(.rosterPreviewButton), attrs: [.dataBusy: t(.importing)])
                }
            }
            H.el(.h2, [:]) { EscapedText(t(.rosterRuns)) }
            if runs.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.rosterNoRuns)) }
            } else {
                H.el(.ul, [.class: "loans"]) {
                    for run in runs {
                        H.el(.li, [:]) {
                            H.el(.a, [.href: WebRoute.rosterRun(library: lib, run: run.id).path]) {
                                EscapedText(t.dateTime(run.createdAt) + " · " + (run.fileName.isEmpty ? t(.rosterFile) : run.fileName))
                            }
                            H.el(.p, [.class: "muted"]) {
                                EscapedText(RosterRunPage.countsText(run.plan.counts, applied: run.appliedAt != nil, t) + " · "
                                            + (run.appliedAt.map { t.format(.rosterApplied, t.dateTime($0), run.appliedBy ?? "") } ?? t(.rosterNotApplied)))
                            }
                        }
                    }
                }
            }
        }
    }
}

extension RosterRunPage {
    /// What a run would do, or (`applied`) did.
    static func countsText(_ counts: RosterCountsDTO?, applied: Bool, _ t: Strings) -> String {
        let c = counts ?? RosterCountsDTO(added: 0, changed: 0, leaving: 0, refused: 0)
        if applied {
            return t.format(.actRosterSyncedDetail, t.number(c.added), t.number(c.changed), t.number(c.leaving))
                + (c.refused > 0 ? "; " + t.format(.rosterRefusedCount, t.number(c.refused)) : "")
        }
        return t.format(.rosterRunCounts, t.number(c.added), t.number(c.changed), t.number(c.leaving), t.number(c.refused))
    }

    static func problem(_ p: RosterProblemDTO, _ t: Strings) -> String {
        let v = p.values
        let why: String = switch p.code {
        case "missing": t.format(.rosterProbMissing, v["column"] ?? "")
        case "too_long": t.format(.rosterProbTooLong, v["column"] ?? "", v["max"] ?? "")
        case "invalid_email": t.format(.rosterProbEmail, v["value"] ?? "", v["column"] ?? "")
        case "duplicate_id": t.format(.rosterProbDuplicate, v["id"] ?? "", v["first"] ?? "")
        case "field_count": t.format(.rosterProbFieldCount, v["found"] ?? "", v["expected"] ?? "")
        case "control": t.format(.rosterProbControl, v["column"] ?? "")
        case "card_taken": t.format(.rosterProbCardTaken, v["card"] ?? "", v["name"] ?? "")
        case "card_matched_twice": t.format(.rosterProbCardTwice, v["card"] ?? "", v["name"] ?? "")
        default: p.reason
        }
        return t.format(.rosterFileLine, p.file, t.number(p.line)) + ": " + why
    }

    static func change(_ c: RosterChangeDTO.Field, _ t: Strings) -> String {
        switch c.field {
        case "rosterId": return t(.rosterLinked)
        case "archived": return t(.rosterBack)
        default:
            let label: String = switch c.field {
            case "firstName": t(.firstName)
            case "lastName": t(.lastName)
            case "grade": t(.grade)
            case "email": t(.email)
            default: t(.rosterColGuardian)
            }
            return label + ": " + (c.from ?? "–") + " → " + (c.to ?? "–")
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let plan = run.plan
        let shown = Self.shown
        func more(_ n: Int) -> any Component {
            n > shown ? H.el(.p, [.class: "muted"]) { EscapedText(t.format(.rosterMore, t.number(n - shown))) } : EmptyComponent()
        }
        let title = t.format(.rosterRunTitle, run.fileName.isEmpty ? t.dateTime(run.createdAt) : run.fileName)
        return Layout.page(page, title: title) {
            H.el(.p, [:]) { H.link("← " + t(.rosterTitle), WebRoute.roster(library: lib).path) }
            H.el(.h1, [:]) { EscapedText(title) }
            H.el(.p, [:]) {
                EscapedText(t.format(.rosterSummary, t.number(plan.students), t.number(plan.teachers), t.number(plan.unchanged)) + " "
                            + (run.mode == .full ? t(.rosterModeFull) : t(.rosterModeDelta)))
            }
            H.el(.p, [.class: "card", .role: "status"]) {
                EscapedText(Self.countsText(RosterCountsDTO(added: plan.added.count, changed: plan.changed.count, leaving: plan.leaving.count,
                                                            refused: plan.refused.count), applied: run.appliedAt != nil, t))
            }
            if let at = run.appliedAt {
                H.el(.p, [.class: "flash"]) { EscapedText(t.format(.rosterApplied, t.dateTime(at), run.appliedBy ?? "")) }
            } else if applicable {
                H.form(WebRoute.rosterApply(library: lib, run: run.id).path, csrf: page.csrf) {
                    if mayMakeStaff, (plan.teacherAccounts ?? []).contains(where: { $0.email != nil }) {
                        H.el(.div, [.class: "field"]) {
                            H.el(.label, [.for: "f-teachersAs"]) { EscapedText(t(.rosterTeachersAs)) }
                            H.el(.select, [.id: "f-teachersAs", .name: "teachersAs", .ariaDescribedby: "f-teachersAs-hint"]) {
                                H.el(.option, [.value: "none", .selected: ""]) { EscapedText(t(.rosterTeachersAsOff)) }
                                for role in [Role.viewer, .volunteer, .librarian] {
                                    H.el(.option, [.value: role.rawValue]) { EscapedText(SettingsPages.roleName(role, t)) }
                                }
                            }
                            H.el(.p, [.class: "hint", .id: "f-teachersAs-hint"]) { EscapedText(t(.rosterTeachersAsHint)) }
                        }
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.rosterApplyHint)) }
                    H.button(t(.rosterApplyButton), attrs: [.dataBusy: t(.importing)])
                }
            } else {
                H.el(.p, [.class: "flash error"]) { EscapedText(t(.rosterExpired)) }
            }
            if let role = plan.staffRole {
                H.el(.p, [.class: "flash"]) { EscapedText(t.format(.rosterStaffAdded, t.number(plan.staffAdded ?? 0), SettingsPages.roleName(role, t))) }
            }
            if let teachers = plan.teacherAccounts, !teachers.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rosterTeachersHeading)) }
                H.el(.ul, [.class: "loans"]) {
                    for teacher in teachers.prefix(shown) {
                        H.el(.li, [:]) {
                            EscapedText(([teacher.name, teacher.email ?? "", teacher.classes.joined(separator: ", ")]).filter { !$0.isEmpty }.joined(separator: " · ")
                                        + " — " + Self.teacherAccount(teacher.account, t))
                        }
                    }
                }
                more(teachers.count)
            }
            if plan.withoutSchoolID > 0 { H.el(.p, [.class: "muted"]) { EscapedText(t.format(.rosterWithoutID, t.number(plan.withoutSchoolID))) } }
            if !plan.refused.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rosterRefusedRows)) }
                H.el(.ul, [.class: "loans"]) {
                    for p in plan.refused.prefix(shown) { H.el(.li, [.class: "overdue"]) { EscapedText(Self.problem(p, t)) } }
                }
                more(plan.refused.count)
            }
            if !plan.leaving.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rosterLeaving)) }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.rosterLeavingHint)) }
                H.el(.ul, [.class: "loans"]) {
                    for m in plan.leaving.prefix(shown) {
                        H.el(.li, [.class: m.loansOut.isEmpty ? nil : "overdue"]) {
                            H.link(m.name, WebRoute.member(library: lib, member: m.memberId).path)
                            EscapedText(" · " + [m.card, m.grade].compactMap { $0 }.joined(separator: " · "))
                            if !m.loansOut.isEmpty {
                                H.el(.p, [:]) { EscapedText(t.format(.rosterLoansOut, m.loansOut.prefix(10).joined(separator: "; "))) }
                            }
                        }
                    }
                }
                more(plan.leaving.count)
            }
            if !plan.changed.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rosterChanged)) }
                H.el(.ul, [.class: "loans"]) {
                    for m in plan.changed.prefix(shown) {
                        H.el(.li, [:]) {
                            H.link(m.name, WebRoute.member(library: lib, member: m.memberId).path)
                            EscapedText(" · " + m.card)
                            H.el(.p, [.class: "muted"]) { EscapedText(m.changes.map { Self.change($0, t) }.joined(separator: "; ")) }
                        }
                    }
                }
                more(plan.changed.count)
            }
            if !plan.added.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rosterAdded)) }
                H.el(.ul, [.class: "loans"]) {
                    for m in plan.added.prefix(shown) {
                        H.el(.li, [:]) { EscapedText([m.name, m.card, m.grade, m.email].compactMap { $0 }.joined(separator: " · ")) }
                    }
                }
                more(plan.added.count)
            }
        }
    }
}

extension AuditPage {
    static func actionName(_ action: String, _ t: Strings) -> String {
        switch AuditLog.Action(rawValue: action) {
        case .rosterApplied: t(.auditRosterApplied)
        case .memberArchived: t(.auditMemberArchived)
        case .memberUnarchived: t(.auditMemberUnarchived)
        case .memberExported: t(.auditMemberExported)
        case .memberErased: t(.auditMemberErased)
        case .staffAdded: t(.auditStaffAdded)
        case .roleChanged: t(.auditRoleChanged)
        case .staffRemoved: t(.auditStaffRemoved)
        case .rollover: t(.auditRollover)
        case .rolloverUndone: t(.auditRolloverUndone)
        case .retention: t(.auditRetention)
        case .restore: t(.auditRestore)
        case .erase: t(.auditErase)
        case nil: action
        }
    }

    static func detail(_ e: AuditEntryDTO, _ t: Strings) -> String? {
        let d = e.detail
        switch AuditLog.Action(rawValue: e.action) {
        case .rosterApplied:
            return RosterRunPage.countsText(RosterCountsDTO(added: Int(d["added"] ?? "") ?? 0, changed: Int(d["changed"] ?? "") ?? 0,
                                                            leaving: Int(d["archived"] ?? "") ?? 0, refused: Int(d["refused"] ?? "") ?? 0),
                                            applied: true, t)
        case .rollover:
            return t.format(.rolloverSummary, t.number(Int(d["moved"] ?? "") ?? 0), t.number(Int(d["archived"] ?? "") ?? 0),
                            t.number(Int(d["goalsCleared"] ?? "") ?? 0))
        case .memberErased:
            return d["reason"]
        case .retention:
            return t.format(.auditRetentionDetail, t.number(Int(d["loans"] ?? "") ?? 0), t.number(Int(d["reads"] ?? "") ?? 0))
        case .staffAdded, .roleChanged:
            return d["role"].flatMap(Role.init(rawValue:)).map { t.role($0) }
        default:
            return nil
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.auditTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.auditTitle)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.auditIntro)) }
            if entries.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.auditEmpty)) }
            } else {
                H.el(.ul, [.class: "loans"]) {
                    for e in entries {
                        H.el(.li, [:]) {
                            H.el(.strong, [:]) { EscapedText(Self.actionName(e.action, t)) }
                            let whom = e.memberID.map { members[$0] ?? t(.auditFormerMember) } ?? e.target
                            let what = [whom, Self.detail(e, t)].compactMap { $0 }
                            if !what.isEmpty { H.el(.p, [:]) { EscapedText(what.joined(separator: " · ")) } }
                            H.el(.p, [.class: "muted"]) { EscapedText(t.dateTime(e.at) + " · " + e.actor) }
                        }
                    }
                }
                Components.pager(paging, total: total, t: t) { WebRoute.audit(library: lib).path(query: [("page", $0 > 1 ? String($0) : nil)]) }
            }
        }
    }
}

extension RolloverPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.rolloverTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.rolloverTitle)) }
            H.el(.p, [:]) { EscapedText(t(.rolloverIntro)) }
            if classes.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.rolloverNoClasses)) }
            } else {
                H.form(WebRoute.rollover(library: lib).path, csrf: page.csrf, attrs: [.class: "card"]) {
                    if let error { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(error) } }
                    for (i, c) in classes.enumerated() {
                        H.el(.fieldset, [.class: "rollover-class"]) {
                            H.el(.legend, [:]) { EscapedText(c.name + " · " + t(.membersCount, c.members)) }
                            H.void(.input, [.type: "hidden", .name: "from\(i)", .value: c.name])
                            H.field(t(.rolloverBecomes), name: "to\(i)", value: c.becomes ?? "", id: "f-to\(i)", extra: [.autocomplete: "off"])
                            H.el(.label, [.class: "pick"]) {
                                H.void(.input, [.type: "checkbox", .name: "leave\(i)", .value: "true", .checked: c.leaves ? "" : nil])
                                EscapedText(" " + t(.rolloverLeaves))
                            }
                        }
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "clearGoals", .value: "true"])
                        EscapedText(" " + t(.rolloverClearGoals))
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.rolloverHint)) }
                    H.button(t(.rolloverButton), attrs: [.dataBusy: t(.importing)])
                }
            }
            if !rollovers.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.rolloverDoneHeading)) }
                H.el(.ul, [.class: "loans"]) {
                    for r in rollovers {
                        H.el(.li, [:]) {
                            H.el(.strong, [:]) { EscapedText(t.dateTime(r.at) + " · " + r.by) }
                            H.el(.p, [:]) {
                                EscapedText(t.format(.rolloverSummary, t.number(r.summary.moved), t.number(r.summary.archived), t.number(r.summary.goalsCleared)))
                            }
                            H.el(.p, [.class: "muted"]) {
                                EscapedText(r.classes.map { "\($0.from) → " + ($0.leave ? t(.rolloverLeaves) : ($0.to ?? "")) }.joined(separator: "; "))
                            }
                            if let undone = r.undoneAt {
                                H.el(.p, [.class: "muted"]) { EscapedText(t.format(.rolloverUndoneOn, t.dateTime(undone), r.undoneBy ?? "")) }
                            } else if r.undoable {
                                H.form(WebRoute.rolloverUndo(library: lib, rollover: r.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                                    H.button(t(.rolloverUndo), kind: "quiet")
                                }
                            }
                            if isOwner { H.el(.p, [:]) { H.link(t(.rolloverBackup), APILink.rolloverBackup(library: lib, rollover: r.id).path) } }
                        }
                    }
                }
            }
        }
    }
}

extension RosterRunPage {
    static func teacherAccount(_ account: RosterTeacherDTO.Account, _ t: Strings) -> String {
        switch account {
        case .staff: t(.rosterTeacherStaff)
        case .existing: t(.rosterTeacherExisting)
        case .new: t(.rosterTeacherNew)
        case .noEmail: t(.rosterTeacherNoEmail)
        }
    }
}
