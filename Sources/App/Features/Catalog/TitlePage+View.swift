import Foundation
import Plot
import ShelfmarkCore

extension TitlePage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, d, canEdit, canLend, shelves) = (libraryID, detail, canEdit, canLend, shelves)
        let here = WebRoute.title(library: lib, title: d.id).path
        return Layout.page(page, title: d.title) {
            Components.listBeside(WebRoute.catalog(library: lib).path, kind: "catalog", label: t(.navCatalog))
            H.el(.article, [.class: "book"]) {
                H.el(.div, [.class: "book-head"]) {
                    Components.cover(d.coverUrl, title: d.title, t: t, size: "large")
                    H.el(.div, [:]) {
                        H.el(.h1, [:]) { EscapedText(d.title) }
                        if let sub = d.subtitle { H.el(.p, [.class: "subtitle"]) { EscapedText(sub) } }
                        if !d.authors.isEmpty { H.el(.p, [.class: "authors"]) { EscapedText(t.format(.by, d.authors.joined(separator: ", "))) } }
                        if let rating = d.ratingAverage ?? d.rating {
                            let said = t.format(.starsOutOfFive, rating.formatted(.number.precision(.fractionLength(0...1)).locale(t.lang.locale)))
                            H.el(.p, [.class: "rating"]) {
                                H.el(.span, [.role: "img", .ariaLabel: t(.rating) + ": " + said]) { EscapedText(Self.stars(rating)) }
                                if d.ratingCount > 0 {
                                    H.el(.span, [.class: "hint"]) { EscapedText(" · " + t.format(.readersRatings, t.number(d.ratingCount))) }
                                }
                            }
                        }
                        H.el(.p, [:]) {
                            Components.badge(d.availability, overdue: d.loans.contains { $0.overdue }, t: t)
                            EscapedText(" " + t(.copiesAvailable, d.availability.available))
                        }
                        if canEdit {
                            H.form(here + "/favorite", csrf: page.csrf, attrs: [.class: "inline"]) {
                                H.button(d.favorite ? "♥ " + t(.unfavorite) : "♡ " + t(.favorite), kind: "quiet",
                                         attrs: [.ariaPressed: d.favorite ? "true" : "false"])
                            }
                        }
                    }
                }
                H.el(.div, [.class: "actions"]) {
                    if canLend, d.availability.available > 0 {
                        H.link(t(.checkOut), WebRoute.checkout(library: lib).path(query: [("title", d.id.uuidString)]), cls: "button primary")
                    }
                    if let g = d.links["googleBooks"] { H.el(.a, [.href: g, .class: "button quiet", .rel: "noopener", .target: "_blank"]) { EscapedText(t(.viewOnGoogleBooks)) } }
                    if canEdit { H.link(t(.editTitle), WebRoute.editTitle(library: lib, title: d.id).path, cls: "button quiet") }
                    if canLend, !d.copies.isEmpty { H.link(t(.printLabels), WebRoute.labels(library: lib).path(query: [("title", d.id.uuidString)]), cls: "button quiet") }
                    H.link(t(.bookPDF), APILink.bookSheet(library: lib, title: d.id, format: "pdf").path, cls: "button quiet")
                    H.el(.button, [.type: "button", .class: "button quiet", .dataShare: d.title, .dataShareText: d.title + (d.authors.first.map { " — " + $0 } ?? ""), .hidden: ""]) { EscapedText(t(.share)) }
                }
                if canEdit, let isbn = d.isbn13 { Components.nfcWrite(path: WebRoute.title(library: lib, title: d.id).path, code: isbn, t: t) }
                if !d.wishlist { reading.render(page) }
                Components.bookFacts(d, t: t, seriesLink: { WebRoute.series(library: lib).path(query: [("name", $0)]) })
                if let desc = d.description {
                    // Line breaks kept; a long description opens on demand, its start shown.
                    let paragraphs = desc.components(separatedBy: "\n\n").filter { !$0.trimmed.isEmpty }
                    H.el(.section, [.class: "description"]) {
                        H.el(.h2, [:]) { EscapedText(t(.description)) }
                        if desc.count > 600, paragraphs.count > 1 || desc.count > 900 {
                            H.el(.p, [:]) { EscapedText(String(paragraphs.first?.prefix(400) ?? "") + ((paragraphs.first?.count ?? 0) > 400 ? "…" : "")) }
                            H.el(.details, [:]) {
                                H.el(.summary, [:]) { EscapedText(t(.readMore)) }
                                for para in paragraphs { H.el(.p, [:]) { EscapedText(para) } }
                            }
                        } else {
                            for para in paragraphs { H.el(.p, [:]) { EscapedText(para) } }
                        }
                    }
                }
                if let marc {
                    H.el(.details, [.class: "marc"]) {
                        H.el(.summary, [:]) { EscapedText(t(.marcRecordHeading)) }
                        H.el(.table, [.class: "marc-fields"]) {
                            H.el(.tbody, [:]) {
                                H.el(.tr, [:]) {
                                    H.el(.th, [.scope: "row"]) { EscapedText("LDR") }
                                    H.el(.td, [:]) { EscapedText(marc.leader) }
                                }
                                for field in marc.fields {
                                    H.el(.tr, [:]) {
                                        H.el(.th, [.scope: "row"]) { EscapedText(field.tag) }
                                        H.el(.td, [:]) { EscapedText(TitleMARC.line(field)) }
                                    }
                                }
                            }
                        }
                        H.el(.p, [:]) { H.link(t(.marcRecordDownload), APILink.titleMARC(library: lib, title: d.id).path, cls: "button quiet") }
                    }
                }
                if !d.wishlist { notes.render(page) }
                if canLend, !d.wishlist {
                    H.el(.section, [.id: "member-reading"]) {
                        H.el(.h2, [:]) { EscapedText(t(.logForMember)) }
                        H.form(WebRoute.titleMemberRead(library: lib, title: d.id).path, csrf: page.csrf, attrs: [.class: "member-read"]) {
                            H.field(t(.memberCard), name: "cardId", id: "f-log-card",
                                    extra: [.autocomplete: "off", .autocapitalize: "characters", .list: "member-suggestions", .dataSuggestMembers: APILink.members(library: lib).path])
                            H.el(.datalist, [.id: "member-suggestions"]) { EmptyComponent() }
                            H.el(.div, [.class: "field"]) {
                                H.el(.label, [.for: "f-log-status"]) { EscapedText(t(.status)) }
                                H.el(.select, [.id: "f-log-status", .name: "status"]) {
                                    for status in [ReadStatus.finished, .reading, .wantToRead, .didNotFinish] {
                                        H.el(.option, [.value: status.rawValue]) { EscapedText(ReadingCard.statusName(status, t: t)) }
                                    }
                                }
                            }
                            H.button(t(.addToLog), kind: "quiet")
                        }
                    }
                }
                if canLend, !d.wishlist {
                    H.el(.section, [.id: "holds"]) {
                        H.el(.h2, [:]) { EscapedText(t(.memberHolds)) }
                        if !holds.isEmpty {
                            Components.holdList(holds, lib: lib, t: t, csrf: page.csrf, back: here, showTitle: false, showMember: true)
                        }
                        H.form(WebRoute.titleHolds(library: lib, title: d.id).path, csrf: page.csrf, attrs: [.class: "member-read"]) {
                            H.field(t(.memberCard), name: "cardId", id: "f-hold-card",
                                    extra: [.autocomplete: "off", .autocapitalize: "characters", .list: "member-suggestions",
                                            .dataSuggestMembers: APILink.members(library: lib).path])
                            H.button(t(.placeHold), kind: "quiet")
                        }
                    }
                }
                if !d.loans.isEmpty {
                    H.el(.section, [:]) {
                        H.el(.h2, [:]) { EscapedText(t(.currentLoans)) }
                        Components.loanList(d.loans, lib: lib, t: t, showTitle: false, showMember: true,
                                            actions: canLend ? .init(back: here, csrf: page.csrf, maxRenewals: self.maxRenewals) : nil)
                    }
                }
                H.el(.section, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.copies)) }
                    H.el(.ul, [.class: "copies"]) {
                        for copy in d.copies {
                            H.el(.li, [:]) {
                                H.el(.span, [:]) {
                                    EscapedText(t.format(.copyNumber, t.number(copy.copyNumber)) + " · " + copy.barcode
                                                + (copy.callNumber.map { " · " + $0 } ?? ""))
                                }
                                H.el(.span, [:]) {
                                    EscapedText(Self.statusText(copy.status, t: t) + (copy.statusAt.map { " · " + t.date($0) } ?? "")
                                         + (copy.statusNote.map { " · " + $0 } ?? ""))
                                    if let location = copy.location {
                                        EscapedText(" · ")
                                        if let shelf = shelves[location] {
                                            H.link(t.format(.shelfHeading, location), WebRoute.shelf(library: lib, shelf: shelf).path)
                                        } else {
                                            EscapedText(t.format(.shelfHeading, location))
                                        }
                                    }
                                }
                                H.el(.a, [.href: APILink.copyBarcode(library: lib, copy: copy.id).path, .class: "label-link"]) {
                                    H.void(.img, [.src: APILink.copyBarcode(library: lib, copy: copy.id).path, .alt: t(.barcode) + " " + copy.barcode,
                                                   .class: "label", .loading: "lazy"])
                                }
                                Components.nfcWrite(path: WebRoute.title(library: lib, title: d.id).path, code: "shelfmark:copy:" + copy.barcode, t: t)
                                if canEdit, copy.status != .onLoan {
                                    // Mark this copy lost, damaged or withdrawn (or back), or remove it: this one, not "some copy".
                                    H.el(.details, [.class: "copy-actions"]) {
                                        H.el(.summary, [:]) { EscapedText(t(.copyStatusChange)) }
                                        H.form(WebRoute.copyStatus(library: lib, copy: copy.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                            H.el(.div, [.class: "field"]) {
                                                H.el(.label, [.for: "f-status-" + copy.id.uuidString]) { EscapedText(t(.status)) }
                                                H.el(.select, [.id: "f-status-" + copy.id.uuidString, .name: "status"]) {
                                                    for status in [CopyStatus.available, .lost, .damaged, .withdrawn] {
                                                        H.el(.option, [.value: status.rawValue, .selected: status == copy.status ? "" : nil]) {
                                                            EscapedText(Self.statusText(status, t: t))
                                                        }
                                                    }
                                                }
                                            }
                                            H.field(t(.statusNote), name: "statusNote", value: copy.statusNote, id: "f-note-" + copy.id.uuidString)
                                            H.button(t(.save), kind: "quiet")
                                        }
                                        H.form(WebRoute.copyRemove(library: lib, copy: copy.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                            H.button(t(.removeCopy), kind: "danger", attrs: [.ariaLabel: t(.removeCopy) + ": " + copy.barcode])
                                        }
                                    }
                                }
                            }
                        }
                    }
                    if canEdit {
                        H.form(WebRoute.titleCopies(library: lib, title: d.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                            H.field(t(.copiesField), name: "count", type: "number", value: "1", extra: [.min: "1", .max: "500"])
                            H.button(t(.addMoreCopies), kind: "quiet")
                        }
                    }
                }
                if canLend, !history.isEmpty {
                    H.el(.section, [:]) {
                        H.el(.h2, [:]) { EscapedText(t(.borrowingHistory)) }
                        H.el(.ul, [.class: "loans history"]) {
                            for loan in history {
                                H.el(.li, [:]) {
                                    H.el(.span, [:]) { EscapedText("\(loan.memberName) (\(loan.memberCardId))" + (loan.copyBarcode.map { " · " + $0 } ?? "")) }
                                    H.el(.span, [:]) { EscapedText(t.date(loan.checkedOutAt) + " – " + (loan.returnedAt.map { t.date($0) } ?? t(.statusOnLoan))) }
                                }
                            }
                        }
                    }
                }
                if canEdit {
                    H.el(.section, [:]) {
                        H.form(WebRoute.titleNotes(library: lib, title: d.id).path, csrf: page.csrf) {
                            H.textarea(t(.notes), name: "notes", value: d.notes)
                            H.button(t(.saveNotes), kind: "quiet")
                        }
                    }
                    H.el(.section, [.class: "danger"]) {
                        H.form(WebRoute.titleDelete(library: lib, title: d.id).path, csrf: page.csrf) {
                            // The box is the confirmation, with or without JavaScript.
                            H.el(.label, [.class: "pick"]) {
                                H.void(.input, [.type: "checkbox", .name: "confirm", .value: "true", .required: ""])
                                EscapedText(" " + t.format(.deleteConfirm, d.title))
                            }
                            H.button(t(.deleteTitle), kind: "danger")
                        }
                    }
                }
            }
        }
    }

    /// A rating as five stars, halves shown as ⯪ (3.5 is ★★★⯪☆, not four stars).
    static func stars(_ rating: Double) -> String {
        let halves = Int((min(max(rating, 0), 5) * 2).rounded())
        return String(repeating: "★", count: halves / 2) + (halves % 2 == 1 ? "⯪" : "") + String(repeating: "☆", count: 5 - halves / 2 - halves % 2)
    }

    static func statusText(_ s: CopyStatus, t: Strings) -> String {
        switch s {
        case .available: t(.statusAvailable)
        case .onLoan: t(.statusOnLoan)
        case .lost: t(.statusLost)
        case .damaged: t(.statusDamaged)
        case .withdrawn: t(.statusWithdrawn)
        }
    }
}
