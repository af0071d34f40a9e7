import Foundation
import NIOConcurrencyHelpers
import Vapor

/// The public catalog's own rate limit: anyone may reach it without signing in, so each
/// client address gets `perMinute` requests a minute to its pages and its API (`/public/…`,
/// `/api/v1/public/libraries/…`), counted in this process in fixed one-minute windows; beyond that a
/// 429 with `Retry-After`, as a page or as JSON. The staff app is not counted here (its sign-in has its
/// own throttle). `SHELFMARK_PUBLIC_RATE` sets the number (default 240; 0: no limit).
final class PublicRateLimit: Sendable {
    let perMinute: Int
    private struct Window { var start: Date; var counts: [String: Int] }
    private let window: NIOLockedValueBox<Window>
    /// Addresses remembered in one window at most (a flood of spoofed-looking addresses cannot grow memory).
    static let maxAddresses = 100_000

    init(perMinute: Int) {
        self.perMinute = perMinute
        window = NIOLockedValueBox(Window(start: .distantPast, counts: [:]))
    }

    /// Counts one request from `address` at `now`; the seconds to wait when it is over the limit, else nil.
    func take(_ address: String, now: Date) -> Int? {
        guard perMinute > 0 else { return nil }
        return window.withLockedValue { w -> Int? in
            if now.timeIntervalSince(w.start) >= 60 || now < w.start { w = Window(start: now, counts: [:]) }
            let used = (w.counts[address] ?? 0) + 1
            if w.counts.count < Self.maxAddresses || w.counts[address] != nil { w.counts[address] = used }
            guard used > perMinute else { return nil }
            return max(1, Int((60 - now.timeIntervalSince(w.start)).rounded(.up)))
        }
    }

    static func isPublic(_ path: String) -> Bool {
        path.hasPrefix("/public/") || path.hasPrefix("/api/v1/public/libraries/")
    }
}

extension Application {
    private struct PublicRateKey: StorageKey { typealias Value = PublicRateLimit }

    /// The public catalog's limiter; replaced by tests (`app.publicRateLimit = .init(perMinute: 5)`).
    var publicRateLimit: PublicRateLimit {
        get {
            if let made = storage[PublicRateKey.self] { return made }
            let made = PublicRateLimit(perMinute: Environment.get("SHELFMARK_PUBLIC_RATE").flatMap(Int.init) ?? 240)
            storage[PublicRateKey.self] = made
            return made
        }
        set { storage[PublicRateKey.self] = newValue }
    }

    /// The address the public catalog's emailed links start with (`SHELFMARK_PUBLIC_URL`, e.g.
    /// `https://library.school.example`); nil: the address the request came to, when it is one of
    /// this machine's names or addresses.
    var publicURL: String? {
        get {
            if let set = storage[PublicURLKey.self] { return set }
            return Environment.get("SHELFMARK_PUBLIC_URL").map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }.flatMap { $0.isEmpty ? nil : $0 }
        }
        set { storage[PublicURLKey.self] = newValue }
    }

    private struct PublicURLKey: StorageKey { typealias Value = String }
}

/// Counts the public catalog's requests (see `PublicRateLimit`).
struct PublicRateLimitMiddleware: AsyncMiddleware {
    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard PublicRateLimit.isPublic(req.url.path), let wait = req.application.publicRateLimit.take(req.clientAddress ?? "-", now: Date()) else {
            return try await next.respond(to: req)
        }
        let error = PublicRateError.tooMany(waitSeconds: wait)
        let response: Response
        if req.url.path.hasPrefix("/public/") {
            response = try await WebMiddleware.page(status: .tooManyRequests, title: req.t(.errorTitle), message: req.t.message(error), req: req)
        } else {
            response = Response(status: .tooManyRequests)
            try response.content.encode(ErrorBody(error: .init(code: "rate_limited", message: req.t.message(error), field: nil,
                                                               details: ["retryAfter": String(wait)])))
        }
        response.headers.replaceOrAdd(name: "Retry-After", value: String(wait))
        return response
    }
}

enum PublicRateError: DomainError {
    case tooMany(waitSeconds: Int)

    var described: Described {
        switch self {
        case .tooMany(let wait):
            .init(.tooManyRequests, "rate_limited", details: ["retryAfter": String(wait)]) { $0.format(.errPublicRateLimited, $0.number(wait)) }
        }
    }
}
