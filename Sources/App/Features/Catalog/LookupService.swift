import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Where the metadata providers are and how long to wait for them. Defaults: the real services,
/// 10 s. `SHELFMARK_PROVIDERS_URL` points all of them at one replay server (tests, demos);
/// `SHELFMARK_GOOGLE_BOOKS_URL`, `SHELFMARK_OPEN_LIBRARY_URL`, `SHELFMARK_COVERS_URL` one each.
struct MetadataConfig: Sendable, Equatable {
    var endpoints: ProviderEndpoints = .live
    var timeout: Duration = .seconds(10)

    static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> MetadataConfig {
        var config = MetadataConfig()
        func url(_ key: String) throws -> String? {
            guard let value = env[key], !value.isEmpty else { return nil }
            guard value.hasPrefix("http://") || value.hasPrefix("https://"), URL(string: value)?.host != nil else {
                throw AppError.invalid(key, "\(key) must be an http:// or https:// URL (got “\(value)”).")
            }
            return value
        }
        if let base = try url("SHELFMARK_PROVIDERS_URL") { config.endpoints = .replay(base) }
        if let v = try url("SHELFMARK_GOOGLE_BOOKS_URL") { config.endpoints.googleBooks = v }
        if let v = try url("SHELFMARK_OPEN_LIBRARY_URL") { config.endpoints.openLibrary = v }
        if let v = try url("SHELFMARK_COVERS_URL") { config.endpoints.openLibraryCovers = v }
        if let raw = env["SHELFMARK_LOOKUP_TIMEOUT"], !raw.isEmpty {
            guard let seconds = Double(raw), seconds > 0, seconds <= 120 else {
                throw AppError.invalid("SHELFMARK_LOOKUP_TIMEOUT", "SHELFMARK_LOOKUP_TIMEOUT is seconds between 0 and 120 (got “\(raw)”).")
            }
            config.timeout = .milliseconds(Int(seconds * 1000))
        }
        return config
    }
}

extension Application {
    private struct MetadataConfigKey: StorageKey { typealias Value = MetadataConfig }

    var metadataConfig: MetadataConfig {
        get { storage[MetadataConfigKey.self] ?? MetadataConfig() }
        set { storage[MetadataConfigKey.self] = newValue }
    }

    var httpFetcher: HTTPFetcher { HTTPFetcher(client: http.client.shared) }

    /// The sources the administrator chose (`BookSources`), in their order, asked in parallel.
    var metadataLookup: MetadataLookup {
        get async throws {
            let config = metadataConfig
            let order = try await BookSources.load(on: db).order
            return MetadataLookup(providers: config.endpoints.providers(http: httpFetcher, order: order), timeout: config.timeout)
        }
    }
}

/// A lookup answer with where it came from.
struct CachedLookup: Sendable {
    var result: LookupResult
    var cached: Bool
    var fetchedAt: Date
}

/// ISBN lookups through the database cache (positive for 30 days, a definite "not found" for one
/// day; failures are not cached, so the next scan asks again).
enum LookupService {
    static let positiveAge: TimeInterval = 30 * 86_400
    static let negativeAge: TimeInterval = 86_400

    static func isbn(_ isbn: ISBN, lookup: MetadataLookup, now: Date, gate: WriteGate, on db: any Database) async throws -> CachedLookup {
        if let hit = try await cached(isbn.isbn13, now: now, on: db) { return hit }
        let result = await lookup.lookup(isbn)
        if result.record != nil || result.isDefinitelyNotFound {
            try await store(result, at: now, gate: gate, on: db)
        }
        return CachedLookup(result: result, cached: false, fetchedAt: now)
    }

    static func cached(_ isbn13: String, now: Date, on db: any Database) async throws -> CachedLookup? {
        struct Row: Decodable { var found: Bool; var record: String?; var outcomes: String; var fetched_at: Date }
        guard let row = try await db.sql.select().columns("found", "record", "outcomes", "fetched_at").from("lookup_cache")
            .where("isbn13", .equal, isbn13).first(decoding: Row.self) else { return nil }
        let age = now.timeIntervalSince(row.fetched_at)
        guard age < (row.found ? positiveAge : negativeAge) else { return nil }
        let decoder = JSONDecoder()
        let record = try row.record.map { try decoder.decode(BookRecord.self, from: Data($0.utf8)) }
        let outcomes = try decoder.decode([ProviderOutcome].self, from: Data(row.outcomes.utf8))
        return CachedLookup(result: LookupResult(isbn13: isbn13, record: record, outcomes: outcomes), cached: true, fetchedAt: row.fetched_at)
    }

    /// The record the cache holds for an ISBN, whatever its age (what a lookup just showed).
    static func cachedRecord(_ isbn13: String, on db: any Database) async throws -> BookRecord? {
        struct Row: Decodable { var record: String? }
        guard let text = try await db.sql.select().column("record").from("lookup_cache").where("isbn13", .equal, isbn13)
            .first(decoding: Row.self)?.record else { return nil }
        return try? JSONDecoder().decode(BookRecord.self, from: Data(text.utf8))
    }

    static func store(_ result: LookupResult, at now: Date, gate: WriteGate, on db: any Database) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let record = try result.record.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        let outcomes = String(decoding: try encoder.encode(result.outcomes), as: UTF8.self)
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                INSERT INTO lookup_cache (id, isbn13, found, record, outcomes, fetched_at)
                VALUES (\(bind: UUID()), \(bind: result.isbn13), \(bind: result.record != nil), \(bind: record), \(bind: outcomes), \(bind: now))
                ON CONFLICT (isbn13) DO UPDATE SET found = excluded.found, record = excluded.record,
                  outcomes = excluded.outcomes, fetched_at = excluded.fetched_at
                """).run()
        }
    }
}
