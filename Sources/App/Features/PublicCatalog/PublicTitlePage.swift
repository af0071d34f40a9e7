import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// A book in the public catalog: cover, facts, description, each copy's shelf and whether
/// it is on the shelf (or when it is due back), how many wait for it, and "Place a hold" for a signed-in
/// member (or "Sign in to place a hold"). Never who has a copy, never the library's own notes.
struct PublicTitlePage: Sendable {
    struct CopyLine: Sendable { var number: Int; var location: String?; var status: CopyStatus; var dueAt: Date? }

    var library: MemberPortal.PublicLibrary
    var detail: TitleDetail
    var copies: [CopyLine]
    var waiting: Int
    /// The signed-in member's own hold on this book, or their loan of it.
    var ownHold: HoldDTO?
    var borrowing: Bool
    var signedIn: Bool

    static func make(_ titleID: UUID, member: MemberPortal.SignedIn?, library: MemberPortal.PublicLibrary, now: Date,
                     on db: any Database) async throws -> PublicTitlePage {
        let detail = try await TitleQuery.detail(titleID, libraryID: library.id, now: now, on: db)
        guard !detail.wishlist else { throw CatalogError.titleNotFound }
        let due = Dictionary(detail.loans.compactMap { loan in loan.copyId.map { ($0, loan.dueAt) } }, uniquingKeysWith: { a, _ in a })
        let copies = detail.copies.filter { $0.status != .withdrawn }.map {
            CopyLine(number: $0.copyNumber, location: $0.location, status: $0.status, dueAt: $0.status == .onLoan ? due[$0.id] : nil)
        }
        let waiting = try await MemberPortal.waiting(title: titleID, on: db)
        var own: HoldDTO?
        var borrowing = false
        if let member {
            own = try await Holds.ofMember(member.id, libraryID: library.id, on: db).first { $0.titleId == titleID && ($0.state == .waiting || $0.state == .ready) }
            borrowing = detail.loans.contains { $0.memberId == member.id }
        }
        var publicDetail = detail
        (publicDetail.notes, publicDetail.loans, publicDetail.favorite) = (nil, [], false)
        return PublicTitlePage(library: library, detail: publicDetail, copies: copies, waiting: waiting, ownHold: own, borrowing: borrowing,
                               signedIn: member != nil)
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, d) = (library.id, detail)
        return Layout.page(page, title: d.title) {
            Components.listBeside(WebRoute.publicCatalog(library: lib).path, kind: "catalog", label: t(.navCatalog))
            H.el(.article, [.class: "book"]) {
                H.el(.div, [.class: "book-head"]) {
                    Components.cover(d.coverUrl, title: d.title, t: t, size: "large")
                    H.el(.div, [:]) {
                        H.el(.h1, [:]) { EscapedText(d.title) }
                        if let sub = d.subtitle { H.el(.p, [.class: "subtitle"]) { EscapedText(sub) } }
                        if !d.authors.isEmpty { H.el(.p, [.class: "authors"]) { EscapedText(t.format(.by, d.authors.joined(separator: ", "))) } }
                        H.el(.p, [:]) {
                            Components.badge(d.availability, overdue: false, t: t)
                            EscapedText(" " + t(.copiesAvailable, d.availability.available))
                        }
                        if waiting > 0 { H.el(.p, [.class: "hint"]) { EscapedText(t.format(.portalWaiting, t.number(waiting))) } }
                    }
                }
                H.el(.section, [.id: "hold"]) {
                    if let hold = ownHold {
                        H.el(.p, [:]) {
                            H.el(.strong, [:]) {
                                EscapedText(hold.state == .ready ? t.format(.portalYourHoldReady, hold.pickupBy.map { t.date($0) } ?? "")
                                                                 : t.format(.portalYourPlace, t.number(hold.position ?? 1)))
                            }
                            EscapedText(" · ")
                            H.link(t(.portalMyAccount), WebRoute.publicAccount(library: lib).path + "#holds")
                        }
                    } else if borrowing {
                        H.el(.p, [:]) { EscapedText(t(.portalYouHaveIt)) }
                    } else if !copies.isEmpty {
                        H.form(WebRoute.publicHold(library: lib, title: d.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                            H.button(signedIn ? t(.portalPlaceHold) : t(.portalSignInToHold))
                        }
                    }
                }
                Components.bookFacts(d, t: t, seriesLink: { WebRoute.publicCatalog(library: lib).path(query: [("series", $0)]) })
                if let desc = d.description {
                    H.el(.section, [.class: "description"]) {
                        H.el(.h2, [:]) { EscapedText(t(.description)) }
                        for para in desc.components(separatedBy: "\n\n") where !para.trimmed.isEmpty { H.el(.p, [:]) { EscapedText(para) } }
                    }
                }
                if !copies.isEmpty {
                    H.el(.section, [.class: "copies"]) {
                        H.el(.h2, [:]) { EscapedText(t(.portalWhere)) }
                        H.el(.ul, [.class: "plain"]) {
                            for copy in copies {
                                H.el(.li, [:]) {
                                    EscapedText(t.format(.portalCopyLine, t.number(copy.number), copy.location ?? t(.portalNoShelf),
                                                         copy.dueAt.map { t.format(.portalDueBack, t.date($0)) } ?? TitlePage.statusText(copy.status, t: t)))
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
