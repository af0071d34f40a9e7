import Fluent
import Foundation
import SQLKit

/// Finding a member by card ID and a copy by barcode as people type them: without regard to case
/// ("s001" is S001). The exact spelling is tried first, through the index; only when it misses is
/// the case folded (a scan of one library's members or copies).
enum Lookup {
    static func member(card: String, library: UUID, on db: any Database) async throws -> UUID? {
        if let exact = try await first("SELECT id FROM members WHERE library_id = \(bind: library) AND card_id = \(bind: card)", on: db) { return exact }
        return try await member(foldingCase: card, library: library, on: db)
    }

    /// The second look of `member`, for a caller whose own statement has already tried the card as typed.
    static func member(foldingCase card: String, library: UUID, on db: any Database) async throws -> UUID? {
        try await first("SELECT id FROM members WHERE library_id = \(bind: library) AND upper(card_id) = upper(\(bind: card)) ORDER BY card_id", on: db)
    }

    static func copy(barcode: String, library: UUID, on db: any Database) async throws -> UUID? {
        if let exact = try await first("SELECT id FROM copies WHERE library_no = \(LibraryNumber.of(library)) AND barcode = \(bind: barcode)", on: db) { return exact }
        return try await copy(foldingCase: barcode, library: library, on: db)
    }

    /// The second look of `copy`, for a caller whose own statement has already tried the barcode as scanned.
    static func copy(foldingCase barcode: String, library: UUID, on db: any Database) async throws -> UUID? {
        try await first("SELECT id FROM copies WHERE library_no = \(LibraryNumber.of(library)) AND upper(barcode) = upper(\(bind: barcode)) ORDER BY barcode", on: db)
    }

    private static func first(_ query: SQLQueryString, on db: any Database) async throws -> UUID? {
        try await db.sql.raw(query).first()?.decode(column: "id", as: UUID.self)
    }
}
