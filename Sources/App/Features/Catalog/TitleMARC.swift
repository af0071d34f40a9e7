import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A national library's MARC record kept with a title (`titles.marc_record`, MARCXML as the
/// catalogue sent it): shown field by field on the book's page and answered as is.
enum TitleMARC {
    static func text(_ titleID: UUID, libraryID: UUID, on db: any Database) async throws -> String? {
        struct Row: Decodable { var marc_record: String? }
        guard let row = try await db.sql.select().column("marc_record").from("titles")
            .where("id", .equal, titleID).where(LibraryNumber.rows(of: "titles", libraryID)).first(decoding: Row.self) else {
            throw CatalogError.titleNotFound
        }
        return row.marc_record
    }

    static func record(_ titleID: UUID, libraryID: UUID, on db: any Database) async throws -> MARCRecord? {
        guard let text = try await text(titleID, libraryID: libraryID, on: db) else { return nil }
        return MARCXMLReader.firstRecord(text)
    }

    /// A field as cataloguers read it: indicators, then `$a value $b value`.
    static func line(_ field: MARCField) -> String {
        if let value = field.value { return value }
        let indicators = String(field.indicator1) + String(field.indicator2)
        return indicators.replacingOccurrences(of: " ", with: "_") + " "
            + field.subfields.map { "$\($0.code) \($0.value)" }.joined(separator: " ")
    }

    /// `GET …/titles/{id}/marc`: the record as MARCXML (a collection of one), 404 when none is kept.
    @Sendable static func download(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let id = try req.uuid("titleID")
        guard let record = try await text(id, libraryID: ctx.libraryID, on: req.db) else { throw CatalogError.noMARCRecord }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/marcxml+xml; charset=utf-8")
        headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(id.uuidString.lowercased()).xml\"")
        return Response(status: .ok, headers: headers, body: .init(string: MARCXML.header() + record + MARCXML.footer))
    }
}
