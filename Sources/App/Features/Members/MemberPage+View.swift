import Foundation
import Plot
import ShelfmarkCore

extension MemberPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, d) = (libraryID, detail)
        return Layout.page(page, title: d.member.name) {
            Components.listBeside(WebRoute.members(library: lib).path, kind: "members", label: t(.navMembers))
            H.el(.h1, [:]) { EscapedText(d.member.name) }
            H.el(.p, [.class: "card-id"]) { EscapedText(t(.cardID) + ": " + d.member.cardId + (d.member.grade.map { " · " + $0 } ?? "")) }
            if let left = d.member.archivedAt {
                H.el(.p, [.class: "flash error", .role: "status"]) { EscapedText(t.format(.memberArchivedOn, t.date(left))) }
            }
            H.el(.div, [.class: "actions"]) {
                if d.member.archivedAt == nil {
                    H.link(t(.checkOut), WebRoute.checkout(library: lib).path(query: [("card", d.member.cardId)]), cls: "button primary")
                }
                if mayEdit { H.link(t(.editMember), WebRoute.editMember(library: lib, member: d.member.id).path, cls: "button quiet") }
                if mayEdit {
                    H.form(WebRoute.memberArchive(library: lib, member: d.member.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                        H.void(.input, [.type: "hidden", .name: "archived", .value: d.member.archivedAt == nil ? "true" : "false"])
                        H.button(d.member.archivedAt == nil ? t(.archiveMember) : t(.unarchiveMember), kind: "quiet")
                    }
                }
            }
            H.void(.img, [.src: APILink.memberBarcode(library: lib, member: d.member.id).path, .alt: t(.cardID) + " " + d.member.cardId, .class: "member-card"])
            Components.nfcWrite(path: WebRoute.member(library: lib, member: d.member.id).path, code: "shelfmark:member:" + d.member.cardId, t: t)
            H.el(.h2, [:]) { EscapedText(t(.currentLoans)) }
            Components.loanList(d.loans, lib: lib, t: t,
                                actions: .init(back: WebRoute.member(library: lib, member: d.member.id).path, csrf: page.csrf, maxRenewals: maxRenewals))
            if !d.loans.isEmpty {
                H.form(WebRoute.memberRenewAll(library: lib, member: d.member.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                    H.button(t(.renewAllButton), kind: "quiet")
                }
            }
            if d.loans.count > 1 {
                H.form(WebRoute.memberReturnAll(library: lib, member: d.member.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                    H.button(t(.returnAll), kind: "quiet")
                }
            }
            if !d.loans.isEmpty, mayRemind {
                H.form(WebRoute.memberRemind(library: lib, member: d.member.id).path, csrf: page.csrf, attrs: [.class: "inline", .id: "remind"]) {
                    H.button(t(.remindNow), kind: "quiet")
                }
                H.el(.p, [.class: "hint"]) { EscapedText(lastReminder.map { t.format(.lastReminder, t.dateTime($0)) } ?? t(.noReminderYet)) }
            }
            if !holds.isEmpty {
                H.el(.section, [.id: "holds"]) {
                    H.el(.h2, [:]) { EscapedText(t(.memberHolds)) }
                    Components.holdList(holds, lib: lib, t: t, csrf: page.csrf, back: WebRoute.member(library: lib, member: d.member.id).path,
                                        showTitle: true, showMember: false)
                }
            }
            if let fines { finesSection(fines, page: page) }
            calendar.render(page)
            H.el(.section, [.id: "reading"]) {
                H.el(.h2, [:]) { EscapedText(t(.readingLog)) }
                if reads.isEmpty {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.noReadsForMember)) }
                } else {
                    H.el(.ul, [.class: "reads"]) {
                        for read in reads {
                            H.el(.li, [.class: "read"]) {
                                H.el(.div, [.class: "read-head"]) {
                                    if let titleID = read.titleId {
                                        H.el(.a, [.href: WebRoute.title(library: lib, title: titleID).path, .class: "title"]) { EscapedText(read.title) }
                                    } else {
                                        H.el(.span, [.class: "title"]) { EscapedText(read.title) }
                                    }
                                    H.el(.span, [.class: "status"]) {
                                        EscapedText(ReadingCard.statusName(ReadStatus(rawValue: read.status) ?? .wantToRead, t: t)
                                             + (read.finishedAt.map { " · " + t.date($0) } ?? read.startedAt.map { " · " + t.date($0) } ?? ""))
                                    }
                                }
                                H.form(WebRoute.readDelete(library: lib, read: read.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                                    H.void(.input, [.type: "hidden", .name: "member", .value: d.member.id.uuidString])
                                    H.button(t(.removeFromLog), kind: "quiet small")
                                }
                            }
                        }
                    }
                    if readsTotal > reads.count { H.el(.p, [.class: "hint"]) { EscapedText(t.format(.showingRange, "1", t.number(reads.count), t.number(readsTotal))) } }
                }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.logForMemberHint)) }
                H.el(.p, [:]) {
                    H.link(t(.readingStats) + " ›", WebRoute.readingStats(library: lib).path(query: [("member", d.member.id.uuidString)]))
                    if let grade = d.member.grade {
                        EscapedText(" · ")
                        H.link(t.format(.classReadingOf, grade) + " ›", WebRoute.readingClass(library: lib).path(query: [("grade", grade)]))
                    }
                }
            }
            H.el(.h2, [:]) { EscapedText(t(.loanHistory)) }
            if d.history.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noLoans)) }
            } else {
                H.el(.ul, [.class: "loans history"]) {
                    for loan in d.history.prefix(100) {
                        H.el(.li, [:]) {
                            H.el(.span, [:]) { EscapedText(loan.title) }
                            H.el(.span, [:]) { EscapedText(t.date(loan.checkedOutAt) + " – " + (loan.returnedAt.map { t.date($0) } ?? "")) }
                        }
                    }
                }
            }
            if mayEdit {
                H.el(.details, [.class: "card", .id: "privacy"]) {
                    H.el(.summary, [:]) { EscapedText(t(.privacyHeading)) }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.privacyHint)) }
                    H.el(.p, [:]) {
                        H.link(t(.privacyDataJSON), APILink.memberData(library: lib, member: d.member.id, format: "json").path)
                        EscapedText(" · ")
                        H.link(t(.privacyDataPDF), APILink.memberData(library: lib, member: d.member.id, format: "pdf").path)
                    }
                    H.form(WebRoute.memberErase(library: lib, member: d.member.id).path, csrf: page.csrf) {
                        H.field(t(.privacyReason), name: "reason", hint: t(.privacyEraseHint), required: true, extra: [.maxlength: String(Privacy.maxReason)])
                        H.button(t(.privacyEraseButton), kind: "danger")
                    }
                }
            }
        }
    }
}

extension MemberPage {
    /// What the member owes, what overdue books would add, a suspension; a payment and (librarians) a
    /// waiver; the ledger's newest lines.
    func finesSection(_ fines: FineAccountDTO, page: PageContext) -> any Component {
        let t = page.t
        let member = detail.member.id
        return H.el(.section, [.id: "fines"]) {
            H.el(.h2, [:]) { EscapedText(t(.finesHeading)) }
            H.el(.p, [.class: fines.balance > 0 ? "balance owed" : "balance"]) {
                EscapedText(fines.balance > 0 ? t.format(.fineOwes, t.money(fines.balance, fines.currency)) : t(.fineOwesNothing))
            }
            if fines.accruing > 0 { H.el(.p, [.class: "hint"]) { EscapedText(t.format(.fineAccruing, t.money(fines.accruing, fines.currency))) } }
            if let until = fines.suspendedUntil { H.el(.p, [.class: "flash error"]) { EscapedText(t.format(.fineSuspendedUntil, t.date(until))) } }
            if fines.balance > 0 {
                H.form(WebRoute.memberFinePay(library: libraryID, member: member).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                    H.field(t(.fineAmountField), name: "amount", type: "text", value: t.moneyField(MoneyText.plain(fines.balance)), hint: t(.fineAmountHint),
                            id: "f-pay-amount", extra: [.inputmode: "decimal", .autocomplete: "off"])
                    H.button(t(.fineTakePayment))
                }
                if mayWaive {
                    H.el(.details, [:]) {
                        H.el(.summary, [:]) { EscapedText(t(.fineWaive)) }
                        H.form(WebRoute.memberFineWaive(library: libraryID, member: member).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                            H.field(t(.fineAmountField), name: "amount", type: "text", hint: t(.fineAmountHint), id: "f-waive-amount",
                                    extra: [.inputmode: "decimal", .autocomplete: "off"])
                            H.field(t(.fineReasonField), name: "reason", required: true, id: "f-waive-reason", extra: [.maxlength: String(Fines.maxReason)])
                            H.button(t(.fineWaive), kind: "quiet")
                        }
                    }
                }
            }
            if !fines.entries.isEmpty {
                H.el(.ul, [.class: "ledger"]) {
                    for entry in fines.entries.prefix(20) {
                        let kind = switch entry.kind { case .charge: t(.fineKindCharge); case .payment: t(.fineKindPayment); case .waiver: t(.fineKindWaiver) }
                        let what = [kind, entry.title, entry.reason].compactMap { $0 }.joined(separator: " · ")
                        H.el(.li, [:]) {
                            H.el(.span, [:]) { EscapedText(what) }
                            H.el(.span, [.class: entry.kind == .charge ? "amount owed" : "amount"]) {
                                EscapedText((entry.kind == .charge ? "+" : "−") + t.money(entry.amount, fines.currency))
                            }
                            H.el(.span, [.class: "hint"]) { EscapedText(t.date(entry.createdAt)) }
                        }
                    }
                }
            }
        }
    }
}

