import Fluent
import Foundation
import ShelfmarkCore

/// Return (B3): a copy's barcode (typed or scanned), then the loan to confirm: who has it, since
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
        if let copy = try await Copy.query(on: db).filter(\.$library.$id == library.libraryID).filter(\.$barcode == barcode).first(),
           let open = try await Loan.query(on: db).filter(\.$copy.$id == copy.requireID()).filter(\.$returnedAt == nil).first() {
            page.loan = try await Circulation.withBarcodes([open], now: now, on: db).first
            if let id = page.loan?.titleId { page.coverURL = try await Title.find(id, on: db)?.coverURL }
        } else {
            page.form.errors["barcode"] = t.format(.errNoLoanForBarcode, barcode)
        }
        return page
    }
}
