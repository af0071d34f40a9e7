import Foundation
import Plot
import ShelfmarkCore

extension ActivityPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.activity)) {
            H.el(.h1, [:]) { EscapedText(t(.activity)) }
            H.el(.nav, [.class: "chips"]) {
                Components.chipLink(t(.allTypes), self.url(type: nil), current: type == nil)
                for kind in Self.filterTypes {
                    Components.chipLink(Self.describe(kind.rawValue, t).name, self.url(type: kind), current: type == kind)
                }
            }
            Self.list(items, lib: lib, t: t)
            Components.pager(paging, total: nil, hasMore: hasMore, t: t) { self.url(type: type, page: $0) }
        }
    }

    /// Entries as a list (also on the overview).
    static func list(_ items: [ActivityDTO], lib: UUID, t: Strings) -> any Component {
        guard !items.isEmpty else { return H.el(.p, [.class: "empty"]) { EscapedText("—") } }
        return H.el(.ul, [.class: "activity"]) {
            for a in items {
                let d = describe(a.type, t)
                H.el(.li, [.class: "tone-" + d.tone]) {
                    H.el(.span, [.class: "act-icon", .ariaHidden: "true"]) { EscapedText(d.icon) }
                    H.el(.span, [.class: "meta"]) {
                        H.el(.span, [.class: "name"]) {
                            if let title = a.title, let id = a.titleId {
                                EscapedText(d.name + ": ")
                                H.link(title, WebRoute.title(library: lib, title: id).path)
                            } else {
                                EscapedText(d.name + (a.title.map { ": " + $0 } ?? ""))
                            }
                        }
                        H.el(.span, [.class: "authors"]) {
                            H.el(.time, [.datetime: a.at.formatted(.iso8601)]) { EscapedText(t.dateTime(a.at)) }
                            if let card = a.memberCardId {
                                EscapedText(" · ")
                                H.link(card, WebRoute.members(library: lib).path(query: [("q", card)]))
                            }
                            EscapedText([a.detail.map { t.message($0) } ?? a.info, a.actor].compactMap { $0 }.map { " · " + $0 }.joined())
                        }
                    }
                }
            }
        }
    }

    /// Each activity type's icon, colour class and name.
    static func describe(_ type: String, _ t: Strings) -> (icon: String, tone: String, name: String) {
        guard let kind = ActivityType(rawValue: type) else { return ("•", "other", type) }
        switch kind {
        case .checkout: return ("↗", "lend", t(.actCheckout))
        case .returnBook: return ("↙", "return", t(.actReturn))
        case .renew: return ("↻", "lend", t(.actRenew))
        case .addBook: return ("+", "add", t(.actAddBook))
        case .addCopy: return ("+", "add", t(.actAddCopy))
        case .editBook: return ("✎", "edit", t(.actEditBook))
        case .removeCopy: return ("−", "delete", t(.actRemoveCopy))
        case .deleteBook: return ("✕", "delete", t(.actDeleteBook))
        case .addWishlist: return ("☆", "wish", t(.actAddWishlist))
        case .fulfillWishlist: return ("★", "wish", t(.actFulfillWishlist))
        case .deleteWishlist: return ("✕", "delete", t(.actDeleteWishlist))
        case .importBooks: return ("⇣", "add", t(.actImport))
        case .addMember: return ("+", "member", t(.actAddMember))
        case .editMember: return ("✎", "member", t(.actEditMember))
        case .deleteMember: return ("✕", "delete", t(.actDeleteMember))
        case .addCategory: return ("#", "edit", t(.actAddCategory))
        case .editCategory: return ("#", "edit", t(.actEditCategory))
        case .deleteCategory: return ("#", "delete", t(.actDeleteCategory))
        case .editLibrary: return ("⚙", "edit", t(.actEditLibrary))
        case .addStaff: return ("+", "member", t(.actAddStaff))
        case .removeStaff: return ("−", "delete", t(.actRemoveStaff))
        case .holdPlaced: return ("⏳", "lend", t(.actHoldPlaced))
        case .holdCancelled: return ("✕", "delete", t(.actHoldCancelled))
        case .holdExpired: return ("⌛", "delete", t(.actHoldExpired))
        case .holdFulfilled: return ("✓", "lend", t(.actHoldFulfilled))
        case .fineCharged: return ("¤", "delete", t(.actFineCharged))
        case .finePaid: return ("¤", "lend", t(.actFinePaid))
        case .fineWaived: return ("¤", "edit", t(.actFineWaived))
        case .memberSuspended: return ("⏸", "delete", t(.actMemberSuspended))
        case .memberArchived: return ("⌂", "delete", t(.actMemberArchived))
        case .memberUnarchived: return ("⌂", "member", t(.actMemberUnarchived))
        case .rosterSynced: return ("⇅", "member", t(.actRosterSynced))
        }
    }
}
