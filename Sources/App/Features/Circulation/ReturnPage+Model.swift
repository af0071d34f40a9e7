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

    static func make(barcode: String?, library: LibraryContext, now: Date, t: Strings, on db: any Database) async throws -> ReturnPage {
        let barcode = barcode?.cleanedInput
        var page = ReturnPage(libraryID: library.libraryID, form: FormState(values: ["barcode": barcode ?? ""]))
        guard let barcode, !barcode.isEmpty else { return page }
        if let open = try await Circulation.openLoan(barcode: barcode, library: library.libraryID, now: now, on: db) {
            (page.loan, page.coverURL) = (open.loan, open.coverURL)
        } else {
            page.form.errors["barcode"] = t.format(.errNoLoanForBarcode, barcode)
        }
        return page
    }
}
