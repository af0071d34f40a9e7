import Fluent
import Foundation
import ShelfmarkCore

/// A borrower. Has no login; identified by a card ID unique within the library.
final class Member: Model, @unchecked Sendable {
    static let schema = "members"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "card_id") var cardID: String
    @Field(key: "first_name") var firstName: String
    @Field(key: "last_name") var lastName: String
    @OptionalField(key: "grade") var grade: String?
    @OptionalField(key: "email") var email: String?
    @OptionalField(key: "notes") var notes: String?
    /// The language messages to the member are written in; nil: the library's.
    @OptionalField(key: "language") var language: String?
    @Field(key: "search_text") var searchText: String
    /// The member's id in the school's records (the roster sync matches by it).
    @OptionalField(key: "roster_id") var rosterID: String?
    @OptionalField(key: "guardian_email") var guardianEmail: String?
    /// When they left (a roster sync or the rollover): they keep their history but borrow nothing.
    @OptionalField(key: "archived_at") var archivedAt: Date?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    init() {}

    var fullName: String { Member.fullName(first: firstName, last: lastName) }

    /// "Mia Keller"; a name written in Chinese, Japanese or Korean script puts the family name first,
    /// without a space, as it is written there ("王小明", not "小明 王").
    static func fullName(first: String, last: String) -> String {
        if !first.isEmpty, !last.isEmpty, isEastAsian(first), isEastAsian(last) { return last + first }
        return [first, last].filter { !$0.isEmpty }.joined(separator: " ")
    }

    private static func isEastAsian(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { s in
            switch s.value {
            case 0x3040...0x30FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7AF, 0xF900...0xFAFF, 0x20000...0x2FA1F: true
            default: false
            }
        }
    }

    /// What a member search matches: card ID, names and class, as word prefixes.
    static func searchText(cardID: String, firstName: String, lastName: String, grade: String?) -> String {
        " " + SearchText.document([cardID, firstName, lastName, grade ?? ""]) + " "
    }

    func refreshDerived() {
        searchText = Self.searchText(cardID: cardID, firstName: firstName, lastName: lastName, grade: grade)
    }
}

/// A copy lent to a member. Never deleted: returning sets `returnedAt`. Title and member are also
/// kept as text so the history survives deleting either.
final class Loan: Model, @unchecked Sendable {
    static let schema = "loans"

    @ID(key: .id) var id: UUID?
    /// Its library's number (`libraries.no`, `LoansByLibraryNumber`).
    @Field(key: "library_no") var libraryNo: Int
    @OptionalParent(key: "copy_id") var copy: Copy?
    @OptionalParent(key: "title_id") var title: Title?
    @OptionalParent(key: "member_id") var member: Member?
    @Field(key: "title_text") var titleText: String
    @Field(key: "member_card_id") var memberCardID: String
    @Field(key: "member_name") var memberName: String
    @Field(key: "checked_out_at") var checkedOutAt: Date
    @Field(key: "due_at") var dueAt: Date
    @OptionalField(key: "returned_at") var returnedAt: Date?
    @Field(key: "renewals") var renewals: Int
    @Field(key: "checked_out_by") var checkedOutBy: String
    /// The borrower's class when the loan began (the reports count by it).
    @OptionalField(key: "member_grade") var memberGrade: String?
    /// The last reminder stage reached (`ReminderPolicy.Stage`), and when.
    @Field(key: "reminder_stage") var reminderStage: Int
    @OptionalField(key: "reminded_at") var remindedAt: Date?

    init() {}
}

/// One entry of the activity log.
final class Activity: Model, @unchecked Sendable {
    static let schema = "activities"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "at") var at: Date
    @Field(key: "type") var type: String
    @OptionalField(key: "title_id") var titleID: UUID?
    @OptionalField(key: "title_text") var titleText: String?
    @OptionalField(key: "author_text") var authorText: String?
    @OptionalField(key: "member_card_id") var memberCardID: String?
    @OptionalField(key: "info") var info: String?
    @OptionalField(key: "detail") var detail: String?
    @Field(key: "actor") var actor: String

    init() {}
}
