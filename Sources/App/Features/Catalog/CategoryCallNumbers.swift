import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import ShelfmarkLookup
import Vapor

/// A school's own call numbers by category: "Fiction" books are "F" and three letters of the author
/// ("F BYR"), junior non-fiction "J", its Dewey class and three letters ("J 590 ANI"). A category's
/// scheme is a prefix and whether the Dewey class follows it. A book without a call number is given
/// the one its category's scheme makes when it is put into the category (by any door: the Edit
/// page, the API, an import, many at once) and when a scheme is set on its category; a number typed
/// or taken from a record is never replaced. Of several categories with a scheme, the first by name
/// decides.
enum CategoryCallNumbers {
    struct Scheme: Sendable, Equatable {
        var prefix: String
        var dewey: Bool

        /// The call number for a book: "F BYR", or with the Dewey class when the scheme wants it and
        /// it is known ("J 590 ANI"; "J ANI" until it is).
        func callNumber(dewey ddc: String?, authors: [String], title: String?) -> String? {
            CallNumber.suggest(prefix: prefix, dewey: dewey ? ddc : nil, authors: authors, title: title)
        }
    }

    static let maxPrefix = 5

    /// The prefix as kept: one to five letters, upper case; nil (no scheme) for an empty one.
    static func prefix(_ raw: String?) throws -> String? {
        guard let text = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= maxPrefix, text.allSatisfy({ $0.isASCII && $0.isLetter }) else { throw CatalogError.callNumberPrefix }
        return text.uppercased()
    }

    /// Sets a category's scheme (nil prefix: none) and gives its books without a call number theirs.
    /// Answers how many books were given one.
    static func set(_ categoryID: UUID, _ input: CategoryCallNumbersInput, in scope: Scope) async throws -> Int {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let prefix = try prefix(input.prefix)
        let dewey = prefix != nil && (input.withDewey ?? false)
        return try await gate.transaction(on: db) { db in
            guard let category = try await Category.query(on: db).filter(\.$id == categoryID).filter(\.$library.$id == library.libraryID).first() else {
                throw CatalogError.categoryNotFound
            }
            category.callNumberPrefix = prefix
            category.callNumberDewey = dewey
            try await category.save(on: db)
            let titles = try await db.sql.raw("SELECT title_id FROM title_categories WHERE category_id = \(bind: categoryID)").all()
                .map { try $0.decode(column: "title_id", as: UUID.self) }
            let given = try await fill(titles, now: now, on: db)
            try await ActivityLog.record(.init(type: .editCategory, detail: .callNumbers(category: category.name, prefix: prefix, dewey: dewey, given: given.count)),
                                         library: library, at: now, on: db)
            return given.count
        }
    }

    /// Gives each of these books that has no call number (and is not a wish) the one the scheme of its
    /// first category with a scheme makes; answers the books given one. Inside the caller's transaction.
    @discardableResult
    static func fill(_ titles: [UUID], now: Date, on db: any Database) async throws -> [UUID] {
        struct Row: Decodable {
            var id: UUID, title: String, authors: [String], isbn13: String?, call_number_prefix: String, call_number_dewey: Bool?
        }
        var given: [UUID] = []
        for chunk in titles.chunked(500) {
            let rows = try await db.sql.raw("""
                SELECT t.id, t.title, t.authors, t.isbn13, c.call_number_prefix, c.call_number_dewey
                FROM titles t JOIN title_categories tc ON tc.title_id = t.id JOIN categories c ON c.id = tc.category_id
                WHERE t.id IN (\(binds: chunk)) AND t.call_number IS NULL AND t.wishlist = \(bind: false) AND c.call_number_prefix IS NOT NULL
                ORDER BY c.name, c.id
                """).all(decoding: Row.self)
            var seen = Set<UUID>()
            for row in rows where seen.insert(row.id).inserted {
                let scheme = Scheme(prefix: row.call_number_prefix, dewey: row.call_number_dewey ?? false)
                let ddc = scheme.dewey ? try await row.isbn13.asyncFlatMap { try await LookupService.cachedRecord($0, on: db)?.deweyNumber } : nil
                guard let made = scheme.callNumber(dewey: ddc, authors: row.authors, title: row.title) else { continue }
                try await db.sql.raw("""
                    UPDATE titles SET call_number = \(bind: made), call_number_sort = \(bind: Title.callNumberSortKey(made)), updated_at = \(bind: now)
                    WHERE id = \(bind: row.id)
                    """).run()
                given.append(row.id)
            }
        }
        return given
    }

    /// The scheme of a book's first category with one, if any.
    static func scheme(of titleID: UUID, on db: any Database) async throws -> Scheme? {
        struct Row: Decodable { var call_number_prefix: String, call_number_dewey: Bool? }
        return try await db.sql.raw("""
            SELECT c.call_number_prefix, c.call_number_dewey FROM title_categories tc JOIN categories c ON c.id = tc.category_id
            WHERE tc.title_id = \(bind: titleID) AND c.call_number_prefix IS NOT NULL ORDER BY c.name, c.id LIMIT 1
            """).first(decoding: Row.self).map { Scheme(prefix: $0.call_number_prefix, dewey: $0.call_number_dewey ?? false) }
    }
}

extension Optional {
    func asyncFlatMap<U>(_ transform: (Wrapped) async throws -> U?) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

/// Body of setting a category's call-number scheme: the prefix (one to five letters; empty: none)
/// and whether the Dewey class follows it.
struct CategoryCallNumbersInput: Content {
    var prefix: String?
    var withDewey: Bool?
}

/// What setting a scheme did.
struct CategoryCallNumbersDTO: Content {
    var prefix: String?
    var withDewey: Bool
    /// Books of the category without a call number that were given one.
    var given: Int
}

/// Categories' call-number schemes: a prefix and whether the Dewey class follows it.
struct AddCategoryCallNumbers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("categories").field("call_number_prefix", .string).update()
        try await database.schema("categories").field("call_number_dewey", .bool).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("categories").deleteField("call_number_dewey").update()
        try await database.schema("categories").deleteField("call_number_prefix").update()
    }
}
