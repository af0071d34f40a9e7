/// A staff member's role in one library. Each role includes the rights of those below it.
public enum Role: String, Codable, Sendable, CaseIterable, Comparable {
    case viewer
    case volunteer
    case librarian
    case owner

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .volunteer: 1
        case .librarian: 2
        case .owner: 3
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }

    /// What a request asks to do; each action needs a minimum role.
    public enum Action: Sendable {
        case read, circulate, catalog, manageMembers, administer

        public var minimumRole: Role {
            switch self {
            case .read: .viewer
            case .circulate: .volunteer
            case .catalog, .manageMembers: .librarian
            case .administer: .owner
            }
        }
    }

    public func may(_ action: Action) -> Bool { self >= action.minimumRole }
}

/// Kinds of activity-log entries. The raw values are the wire and storage names.
public enum ActivityType: String, Codable, Sendable, CaseIterable {
    case checkout
    case returnBook = "return_book"
    case renew
    case addBook = "add_book"
    case editBook = "edit_book"
    case addCopy = "add_copy"
    case removeCopy = "remove_copy"
    case deleteBook = "delete_book"
    case addWishlist = "add_wishlist"
    case fulfillWishlist = "fulfill_wishlist"
    case deleteWishlist = "delete_wishlist"
    case importBooks = "import"
    case addMember = "add_member"
    case editMember = "edit_member"
    case deleteMember = "delete_member"
    case addCategory = "add_category"
    case editCategory = "edit_category"
    case deleteCategory = "delete_category"
    case editLibrary = "edit_library"
    case addStaff = "add_staff"
    case removeStaff = "remove_staff"
    case holdPlaced = "hold_placed"
    case holdCancelled = "hold_cancelled"
    case holdExpired = "hold_expired"
    case holdFulfilled = "hold_fulfilled"
    case fineCharged = "fine_charged"
    case finePaid = "fine_paid"
    case fineWaived = "fine_waived"
    case memberSuspended = "member_suspended"
    case memberArchived = "member_archived"
    case memberUnarchived = "member_unarchived"
    case rosterSynced = "roster_synced"
}
