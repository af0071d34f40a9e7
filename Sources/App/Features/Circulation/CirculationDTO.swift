import Foundation
import ShelfmarkCore
import Vapor

struct MemberInput: Content {
    var cardId: String
    var firstName: String
    var lastName: String?
    var grade: String?
    var email: String?
    var notes: String?
    /// The language messages to the member are written in (`de`, `ga` …); absent: the library's.
    var language: String?
}

/// The members page's add form reads this type too (`req.form(MemberInput.self)`).
extension MemberInput: WebForm {}

struct MemberPatch: Content {
    var cardId: String?
    var firstName: String?
    var lastName: String?
    var grade: String?
    var email: String?
    var notes: String?
    /// Empty: back to the library's language.
    var language: String?
}

struct MemberDTO: Content {
    var id: UUID
    var cardId: String
    var firstName: String
    var lastName: String
    var name: String
    var grade: String?
    var email: String?
    var notes: String?
    var language: String?
    var activeLoans: Int
    /// The member's id in the school's records (set by a roster sync).
    var rosterId: String? = nil
    var guardianEmail: String? = nil
    /// When the member left: they borrow nothing and are not listed, but keep their history.
    var archivedAt: Date? = nil
}

extension MemberDTO {
    /// Contact details and notes are for those who manage members (librarians, owners), as on the web.
    func visible(to role: Role) -> MemberDTO {
        guard !role.may(.manageMembers) else { return self }
        var copy = self
        copy.email = nil
        copy.notes = nil
        copy.guardianEmail = nil
        return copy
    }
}

struct MemberDetail: Content {
    var member: MemberDTO
    var loans: [LoanDTO]
    var history: [LoanDTO]
}

/// Check-out: a member by id or card ID; a book by title id, copy barcode or ISBN; a due date,
/// a number of days, or neither (the library's loan period).
struct CheckoutInput: Content {
    var memberId: UUID?
    var cardId: String?
    var titleId: UUID?
    var copyBarcode: String?
    var isbn: String?
    var dueDate: Date?
    var days: Int?
    /// Lend a copy set aside for another member's hold (that member goes back first in line).
    var lendHeld: Bool? = nil
}

/// What a check-out would do (`POST …/checkouts/preview`), written nowhere: the borrower, the book, the
/// copy to hand over and the due date.
struct CheckoutPreviewDTO: Content {
    var memberId: UUID
    var cardId: String
    var memberName: String
    var titleId: UUID
    var title: String
    var copyId: UUID
    var copyBarcode: String
    var dueAt: Date
    /// Other members waiting for this book (holds not suspended).
    var waiting: Int
    /// The borrower collects their own hold.
    var collectsHold: Bool

    init(_ p: Circulation.Preview) {
        (memberId, cardId, memberName, titleId, title) = (p.memberId, p.cardId, p.memberName, p.titleId, p.title)
        (copyId, copyBarcode, dueAt, waiting, collectsHold) = (p.copyId, p.copyBarcode, p.dueAt, p.waiting, p.collectsHold)
    }
}

struct ReturnInput: Content {
    var loanId: UUID?
    var copyBarcode: String?
}

struct LoanDTO: Content {
    var id: UUID
    var titleId: UUID?
    var title: String
    var copyId: UUID?
    var copyBarcode: String?
    var memberId: UUID?
    var memberCardId: String
    var memberName: String
    var checkedOutAt: Date
    var dueAt: Date
    var returnedAt: Date?
    var renewals: Int
    var overdue: Bool
    var daysOverdue: Int
    /// A return: the member the copy was put aside for (their hold is now ready to collect).
    var heldFor: HeldForDTO? = nil
}

/// How the members list is ordered.
enum MemberSort: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// By last name, then first name.
    case name
    /// By card ID.
    case card
    /// By class (grade), then name.
    case grade
}

struct ActivityDTO: Content {
    var id: UUID
    var at: Date
    var type: String
    var titleId: UUID?
    var title: String?
    var author: String?
    var memberCardId: String?
    var info: String?
    var actor: String
    /// The detail as values, for pages (not part of the API's JSON: `info` says it in English).
    var detail: ActivityDetail? = nil

    enum CodingKeys: String, CodingKey { case id, at, type, titleId, title, author, memberCardId, info, actor }
}

struct Dashboard: Content {
    var titles: Int
    var copies: Int
    var onLoan: Int
    var overdue: Int
    var members: Int
    var wishlist: Int
    var recentActivity: [ActivityDTO]
    var lastAdded: [TitleSummary]
}
