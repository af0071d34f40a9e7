import Foundation
import Plot

extension MembersPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, q, members, mayManage, form, sort, paging, total) = (libraryID, q, members, mayManage, form, sort, paging, total)
        let heading = archived ? t(.formerMembers) : t(.members)
        return Layout.page(page, title: heading) {
            H.el(.h1, [:]) { EscapedText(heading) }
            if archived {
                H.el(.p, [.class: "hint"]) { EscapedText(t(.formerMembersHint)) }
                H.el(.p, [:]) { H.link(t(.members), WebRoute.members(library: lib).path) }
            } else if archivedCount > 0 {
                H.el(.p, [:]) { H.link(t.format(.formerMembersLink, t.number(archivedCount)), WebRoute.members(library: lib).path(query: [("archived", "true")])) }
            }
            if let error = importError {
                H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(error) }
            }
            if let report = importReport {
                H.el(.section, [.class: "card", .role: "status"]) {
                    H.el(.h2, [:]) { EscapedText(t(.importMembers)) }
                    H.el(.p, [:]) {
                        EscapedText(t.format(.membersImported, t.number(report.membersCreated), t.number(report.skipped.count), t.number(report.failed.count)))
                    }
                    if !report.failed.isEmpty || !report.skipped.isEmpty {
                        H.el(.ul, [.class: "loans"]) {
                            for note in report.failed.prefix(500) {
                                H.el(.li, [.class: "overdue"]) { EscapedText(t.format(.lineLabel, t.number(note.line)) + ": " + t.message(note)) }
                            }
                            for note in report.skipped.prefix(500) {
                                H.el(.li, [:]) { EscapedText(t.format(.lineLabel, t.number(note.line)) + ": " + t.message(note)) }
                            }
                        }
                    }
                }
            }
            H.el(.form, [.method: "get", .action: WebRoute.members(library: lib).path, .role: "search", .class: "search"]) {
                H.el(.label, [.for: "f-mq", .class: "visually-hidden"]) { EscapedText(t(.search)) }
                H.void(.input, [.type: "search", .id: "f-mq", .name: "q", .value: q, .placeholder: t(.searchMembers)])
                if sort != .name { H.void(.input, [.type: "hidden", .name: "sort", .value: sort.rawValue]) }
                if archived { H.void(.input, [.type: "hidden", .name: "archived", .value: "true"]) }
                H.button(t(.search), kind: "quiet")
            }
            Components.sortChips([(MemberSort.name, t(.sortName)), (.card, t(.sortCard)), (.grade, t(.sortClass))], current: sort, t: t) {
                self.url(sort: $0)
            }
            if members.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(q == nil ? t(.noMembers) : t.format(.noMatches, q ?? "")) }
            } else {
                H.el(.ul, [.class: "members"]) {
                    for m in members {
                        H.el(.li, [:]) {
                            H.el(.a, [.href: WebRoute.member(library: lib, member: m.id).path, .class: "member-row"]) {
                                H.el(.span, [.class: "name"]) { EscapedText(m.name) }
                                H.el(.span, [.class: "card-id"]) { EscapedText([m.cardId, m.grade].compactMap { $0 }.joined(separator: " · ")) }
                                if m.activeLoans > 0 { H.el(.span, [.class: "badge"]) { EscapedText(t(.loansOut, m.activeLoans)) } }
                            }
                        }
                    }
                }
                Components.pager(paging, total: total, t: t) { self.url(page: $0) }
            }
            if mayManage && !archived {
                H.el(.p, [:]) { H.link(t(.rosterTitle), WebRoute.roster(library: lib).path) }
                H.el(.details, [.class: "card", .open: importError != nil ? "" : nil]) {
                    H.el(.summary, [:]) { EscapedText(t(.importMembers)) }
                    H.form(WebRoute.membersImport(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data"]) {
                        H.el(.div, [.class: "field"]) {
                            H.el(.label, [.for: "f-members-file"]) { EscapedText(t(.importFile)) }
                            H.void(.input, [.type: "file", .id: "f-members-file", .name: "file", .accept: ".csv,.tsv,.txt,text/csv", .required: "",
                                            .ariaDescribedby: "f-members-file-hint"])
                            H.el(.p, [.class: "hint", .id: "f-members-file-hint"]) { EscapedText(t(.importMembersHint)) }
                        }
                        H.button(t(.importButton))
                    }
                    H.el(.p, [:]) { H.link(t(.exportMembers), APILink.membersExport(library: lib).path) }
                    H.el(.p, [:]) { H.link(t(.printCards), WebRoute.memberCards(library: lib).path) }
                }
                H.el(.details, [.class: "card", .open: form.isRefused ? "" : nil]) {
                    H.el(.summary, [:]) { EscapedText(t(.addMember)) }
                    H.form(WebRoute.members(library: lib).path, csrf: page.csrf) {
                        if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                        H.field(t(.cardID), name: "cardId", value: form["cardId"], required: true, error: form.errors["cardId"],
                                extra: [.autocomplete: "off"])
                        H.field(t(.firstName), name: "firstName", value: form["firstName"], required: true, error: form.errors["firstName"])
                        H.field(t(.lastName), name: "lastName", value: form["lastName"], error: form.errors["lastName"])
                        H.field(t(.grade), name: "grade", value: form["grade"], error: form.errors["grade"])
                        H.field(t(.email), name: "email", type: "email", value: form["email"], error: form.errors["email"])
                        H.button(t(.addMember))
                    }
                }
            }
        }
    }
}
