import Fluent
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Password guessing (G2): failed sign-ins are counted per account and per client address in the
/// database (so the count holds across instances on one PostgreSQL). After a few failures each further
/// attempt waits a delay that doubles, up to 15 minutes; a quiet quarter of an hour forgets the count.
/// While locked, a sign-in is refused without looking at the password, so guessing gains nothing.
enum LoginThrottle {
    /// Failures allowed before the delay starts: an account's owner mistyping, a class sharing one address.
    static let freeFailuresPerAccount = 5
    static let freeFailuresPerAddress = 20
    static let maxDelay: TimeInterval = 15 * 60
    static let forgetAfter: TimeInterval = 15 * 60

    static func keys(username: String, address: String?) -> [(key: String, free: Int)] {
        var keys = [(key: "user:" + username.prefix(64), free: freeFailuresPerAccount)]
        if let address { keys.append((key: "addr:" + address.prefix(64), free: freeFailuresPerAddress)) }
        return keys
    }

    /// The delay after `failures` failures when `free` are allowed.
    static func delay(failures: Int, free: Int) -> TimeInterval {
        guard failures >= free else { return 0 }
        return min(maxDelay, pow(2, Double(min(failures - free, 20))))
    }

    /// Seconds until a sign-in may be tried again, 0 when it may be now.
    static func wait(username: String, address: String?, now: Date, on db: any Database) async throws -> Int {
        struct Row: Decodable { var locked_until: Date? }
        var longest: TimeInterval = 0
        for (key, _) in keys(username: username, address: address) {
            if let row = try await db.sql.select().column("locked_until").from("login_failures").where("key", .equal, key)
                .first(decoding: Row.self), let until = row.locked_until, until > now {
                longest = max(longest, until.timeIntervalSince(now))
            }
        }
        return longest > 0 ? max(1, Int((longest - 0.01).rounded(.up))) : 0
    }

    static func recordFailure(username: String, address: String?, now: Date, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            struct Row: Decodable { var failures: Int; var last_failure_at: Date }
            for (key, free) in keys(username: username, address: address) {
                let row = try await db.sql.select().columns("failures", "last_failure_at").from("login_failures")
                    .where("key", .equal, key).first(decoding: Row.self)
                let previous = row.flatMap { now.timeIntervalSince($0.last_failure_at) < forgetAfter ? $0.failures : nil } ?? 0
                let failures = previous + 1
                let wait = delay(failures: failures, free: free)
                let until: Date? = wait > 0 ? now.addingTimeInterval(wait) : nil
                try await db.sql.raw("""
                    INSERT INTO login_failures (key, failures, locked_until, last_failure_at)
                    VALUES (\(bind: key), \(bind: failures), \(bind: until), \(bind: now))
                    ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until,
                      last_failure_at = excluded.last_failure_at
                    """).run()
            }
        }
    }

    /// A correct password clears the account's count (the address's count stays: one good account
    /// must not reset an address that guesses at others).
    static func recordSuccess(username: String, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            try await db.sql.delete(from: "login_failures").where("key", .equal, "user:" + username.prefix(64)).run()
        }
    }
}

extension Request {
    /// The client's address, for throttling sign-ins (the connection's peer).
    var clientAddress: String? { remoteAddress?.ipAddress }
}
