import Foundation
import ShelfmarkCore

/// Lending, in its three steps: the form (member card, book, due date), a choice when several
/// books match what was typed, and the confirmation before anything is written.
struct LendPage: Sendable {
    enum State: Sendable {
        /// The form, empty or as typed with the refusal next to its field.
        case form(FormState)
        case choose(matches: [TitleSummary], values: [String: String])
        case confirm(Confirmation)
    }

    /// What is about to be lent, and the resolved input the confirmation sends.
    struct Confirmation: Sendable {
        var titleName: String
        var coverURL: String?
        var memberName: String
        var cardID: String
        var due: Date
        var input: CheckoutInput
        var dueDateText: String?
        /// The barcode of the copy to hand over.
        var handOver: String
        /// Others waiting for the book; the borrower collects their own reservation; the copy is put
        /// aside for someone else (what to say before "Lend anyway").
        var waiting = 0
        var collectsHold = false
        var heldFor: String?
    }

    var libraryID: UUID
    /// The library's loan period, the default quick pick.
    var defaultDays: Int
    var state: State
}

extension LendPage.Confirmation {
    init(preview p: Circulation.Preview, dueDateText: String?) {
        self.init(titleName: p.title, coverURL: p.coverUrl, memberName: p.memberName, cardID: p.cardId, due: p.dueAt, input: p.input,
                  dueDateText: dueDateText, handOver: p.copyBarcode, waiting: p.waiting, collectsHold: p.collectsHold)
    }
}
