/// Every count a client can send, bounded where the product needs it (one place, so the API, the web
/// forms, imports and restores agree). Sizes of text fields are in `Check` at each field.
public enum Limits {
    /// Copies created or removed by one request (add copies, acquire, a new title, an edit of the total).
    public static let copiesPerRequest = 500
    /// Copies one title may have: a class set is 30, a whole school's reader a few hundred.
    public static let copiesPerTitle = 2_000
    /// Pages of a book.
    public static let pageCount = 1...100_000
    /// Loan renewals a library allows.
    public static let maxRenewals = 0...50
    /// Days a renewal adds; days before the due day a renewal opens; days a held book waits to be collected.
    public static let renewalDays = 1...365
    public static let renewWindowDays = 0...365
    public static let holdPickupDays = 1...60
    /// Holds one member may have waiting or set aside at once (a library's setting; 10 unless it says).
    public static let holdsPerMember = 1...100
    public static let defaultHoldsPerMember = 10
    /// Holds waiting for one title (a class set waited for by a whole year group is ~200).
    public static let holdsPerTitle = 500
    /// Titles, members, loans … one restore may bring (a backup of a large school library is ~100,000 titles).
    public static let rowsPerRestore = 2_000_000
}
