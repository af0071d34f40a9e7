import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore

/// A reader's quotes and notes, per book and across books (searchable), private to the reader.
enum Quotes {
    static let maxText = 5_000
    static let maxNote = 5_000
    static let maxPage = 20

    static func create(_ input: QuoteInput, userID: UUID, in scope: Scope) async throws -> QuoteDTO {
        let title = try await Catalog.find(input.titleId, library: scope.libraryID, on: scope.db)
        let text = try Check.required(input.text, field: "text", max: maxText)
        let note = try Check.optional(input.note, field: "note", max: maxNote)
        let page = try Check.optional(input.page, field: "page", max: maxPage)
        if let photoID = input.photoId {
            _ = try await PagePhotos.find(photoID, userID: userID, library: scope.libraryID, on: scope.db)
        }
        return try await scope.gate.transaction(on: scope.db) { db in
            let quote = Quote()
            quote.id = UUID()
            quote.$library.id = scope.libraryID
            quote.userID = userID
            quote.titleID = try title.requireID()
            quote.page = page
            quote.text = text
            quote.note = note
            quote.photoID = input.photoId
            quote.searchText = Quote.searchText(text: text, note: note, title: title.title, authors: title.authors)
            quote.createdAt = scope.now
            try await quote.create(on: db)
            return quote.dto(title: title.title, authors: title.authors)
        }
    }

    static func delete(_ id: UUID, userID: UUID, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            guard let quote = try await Quote.query(on: db).filter(\.$id == id).filter(\.$userID == userID)
                .filter(\.$library.$id == scope.libraryID).first() else { throw ReadingError.quoteNotFound }
            try await quote.delete(on: db)
        }
    }

    /// The reader's quotes, newest first: of one book, or matching `query` (words of the quote, the
    /// note, the book's title or authors, as word prefixes).
    static func list(userID: UUID, titleID: UUID?, query: String?, libraryID: UUID, limit: Int, offset: Int,
                     on db: any Database) async throws -> (items: [QuoteDTO], total: Int) {
        var builder = Quote.query(on: db).filter(\.$library.$id == libraryID).filter(\.$userID == userID)
        if let titleID { builder = builder.filter(\.$titleID == titleID) }
        for token in SearchText.queryWords(query ?? "") { builder = builder.filter(\.$searchText ~~ " \(token)") }
        let total = try await builder.count()
        let quotes = try await builder.sort(\.$createdAt, .descending).sort(\.$id).range(offset..<(offset + limit)).all()
        let titleIDs = Array(Set(quotes.map(\.titleID)))
        var titles: [UUID: Title] = [:]
        if !titleIDs.isEmpty {
            for t in try await Title.query(on: db).filter(\.$id ~~ titleIDs).all() { titles[t.id!] = t }
        }
        return (quotes.map { $0.dto(title: titles[$0.titleID]?.title ?? "", authors: titles[$0.titleID]?.authors ?? []) }, total)
    }
}

extension Quote {
    func dto(title: String, authors: [String]) -> QuoteDTO {
        QuoteDTO(id: id!, titleId: titleID, title: title, authors: authors, page: page, text: text, note: note, photoId: photoID,
                 createdAt: createdAt)
    }
}
