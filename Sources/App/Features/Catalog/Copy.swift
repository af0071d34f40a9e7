import Fluent
import Foundation
import ShelfmarkCore

/// One physical copy of a title.
final class Copy: Model, @unchecked Sendable {
    static let schema = "copies"

    @ID(key: .id) var id: UUID?
    /// Its library's number (`libraries.no`, `CopiesByLibraryNumber`).
    @Field(key: "library_no") var libraryNo: Int
    @Parent(key: "title_id") var title: Title
    @Field(key: "copy_number") var copyNumber: Int
    @Field(key: "barcode") var barcode: String
    @OptionalField(key: "location") var location: String?
    /// Its own call number where it differs from the title's.
    @OptionalField(key: "call_number") var callNumber: String?
    @OptionalField(key: "condition") var condition: String?
    @Field(key: "status") var status: String
    /// Why and when it was marked lost, damaged or withdrawn.
    @OptionalField(key: "status_note") var statusNote: String?
    @OptionalField(key: "status_at") var statusAt: Date?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    init() {}

    init(libraryNo: Int, titleID: UUID, copyNumber: Int, barcode: String, location: String? = nil) {
        self.libraryNo = libraryNo
        self.$title.id = titleID
        self.copyNumber = copyNumber
        self.barcode = barcode
        self.location = location
        self.status = CopyStatus.available.rawValue
    }

    var copyStatus: CopyStatus { CopyStatus(rawValue: status) ?? .available }

    /// The printable barcode of an accession number: "C000042".
    static func barcode(accession: Int) -> String {
        let digits = String(accession)
        return "C" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}
