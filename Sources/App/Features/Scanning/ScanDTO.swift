import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

struct ScannedCode: Content {
    /// `EAN-13`, `EAN-8`, `UPC-A`, `UPC-E`, `Code 128`, `Code 39`, `Codabar` or `QR`.
    var symbology: String
    var text: String
    /// The 2- or 5-digit add-on printed beside a book's EAN-13 (its price code).
    var addOn: String?
    /// Set when the code is a book's EAN-13.
    var isbn: ISBNForms?

    init(_ b: Barcode) {
        symbology = b.symbology.rawValue
        text = b.text
        addOn = b.addOn
        isbn = b.isbn.flatMap { try? ISBN($0) }.map(ISBNForms.init)
    }
}

struct ScannedText: Content {
    /// What text recognition read, line by line.
    var text: String
    /// ISBNs found in that text (checksums verified; phone numbers and prices are not taken).
    var isbns: [ISBNForms]
}

/// What a photo holds: its codes, or, when it has none, the text read from it (cover search).
struct ScanResponse: Content {
    var found: Bool
    var barcodes: [ScannedCode]
    /// The first ISBN found, from a barcode or from the text.
    var isbn: ISBNForms?
    /// Set when no code was found and text recognition ran.
    var ocr: ScannedText?
    var width: Int
    var height: Int
    var milliseconds: Int
    /// When nothing was found: what to try.
    var message: String?
}
