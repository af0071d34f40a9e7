import Fluent
import Foundation
import ShelfmarkCore

/// Return: a copy's barcode (typed or scanned), then the loan to confirm: who has it, since
/// when, and whether it is overdue. A barcode with no open loan is said next to the field.
struct ReturnPage: Sendable {
    var libraryID: UUID
    var loan: LoanDTO?
    var coverURL: String?
    var form: FormState
    /// What returning it now costs the member (an overdue book, when the library charges fines or suspends).
    var consequence: String?
    /// Confirming a Return button of a list (the book's, the member's, the loans' page): the page to go back to.
    var fromList: String?

    static func make(barcode: String?, library: LibraryContext, now: Date, t: Strings, on db: any Database) async throws -> ReturnPage {
        let barcode = barcode?.cleanedInput
        var page = ReturnPage(libraryID: library.libraryID, form: FormState(values: ["barcode": barcode ?? ""]))
        guard let barcode, !barcode.isEmpty else { return page }
        if let open = try await Circulation.openLoan(barcode: barcode, library: library.libraryID, now: now, on: db) {
            (page.loan, page.coverURL) = (open.loan, open.coverURL)
            page.consequence = try await consequence(of: open.loan, library: library.libraryID, t: t, on: db)
        } else {
            page.form.errors["barcode"] = t.format(.errNoLoanForBarcode, barcode)
        }
        return page
    }

    /// The same confirmation for a loan's own Return button; nil when the loan is back already.
    static func make(loan id: UUID, back: String, library: LibraryContext, now: Date, t: Strings, on db: any Database) async throws -> ReturnPage? {
        guard let open = try await Circulation.openLoan(id: id, library: library.libraryID, now: now, on: db) else { return nil }
        var page = ReturnPage(libraryID: library.libraryID, loan: open.loan, coverURL: open.coverURL, form: FormState(), fromList: back)
        page.consequence = try await consequence(of: open.loan, library: library.libraryID, t: t, on: db)
        return page
    }

    /// "Returning it now charges €1.50" / "… suspends Ada for 4 days", as the return will (the library's fine policy).
    static func consequence(of loan: LoanDTO, library: UUID, t: Strings, on db: any Database) async throws -> String? {
        guard loan.overdue, loan.daysOverdue > 0 else { return nil }
        let policy = try await Fines.policy(library: library, on: db)
        let amount = policy.charge(overdue: loan.daysOverdue), days = policy.suspension(overdue: loan.daysOverdue)
        if amount > 0 { return t.format(.returnCharges, t.money(amount, policy.currency)) }
        if days > 0 { return t.format(.returnSuspends, loan.memberName, t(.days, days)) }
        return nil
    }
}
