import Fluent
import Foundation
import SQLKit
import Vapor

/// Password guessing. Every attempt takes its slot before the password is hashed: one transaction
/// counts it against the account (a username, a card) and the client address, atomically (SQLite's one
/// writer; PostgreSQL's row lock, so both instances of a library count in one row), and refuses it
/// while a lock holds. So parallel guesses cannot all be checked before the first failure is written:
/// after `free` attempts each further one waits a delay that doubles, up to 15 minutes, and the right
/// password is refused like any other while locked. A correct password clears the account's count and
/// gives back its slot at the address. A count is forgotten only an hour after its lock ended.
///
/// Staff sign-in, members' PINs and emailed-link requests are counted apart (their own keys, at the
/// account and at the address): a class asking for links cannot lock the staff out of their address.
enum LoginThrottle {
    enum Kind: String, Sendable {
        /// A staff account's password.
        case staff
        /// A member's card and PIN on the public catalog.
        case member
        /// A member asking for an emailed sign-in link.
        case link

        var accountPrefix: String {
            switch self {
            case .staff: "user:"
            case .member: "card:"
            case .link: "link:"
            }
        }

        var addressPrefix: String {
            switch self {
            case .staff: "addr:"
            case .member: "maddr:"
            case .link: "laddr:"
            }
        }
    }

    /// Attempts allowed before the delay starts: an account's owner mistyping, a class sharing one address.
    static let freeFailuresPerAccount = 5
    static let freeFailuresPerAddress = 20
    static let maxDelay: TimeInterval = 15 * 60
    /// How long after its last attempt and the end of its lock a count is kept.
    static let forgetAfter: TimeInterval = 60 * 60

    static func keys(_ kind: Kind, account: String, address: String?) -> [(key: String, free: Int)] {
        var keys = [(key: kind.accountPrefix + account.prefix(80), free: freeFailuresPerAccount)]
        if let address { keys.append((key: kind.addressPrefix + address.prefix(64), free: freeFailuresPerAddress)) }
        return keys
    }

    /// The delay after `failures` failures when `free` are allowed.
    static func delay(failures: Int, free: Int) -> TimeInterval {
        guard failures >= free else { return 0 }
        return min(maxDelay, pow(2, Double(min(failures - free, 20))))
    }

    private struct Row: Decodable { var failures: Int; var locked_until: Date?; var last_failure_at: Date }

    /// Takes one attempt's slot: 0 when it may go on to the password check (and is counted as a failure
    /// until `succeeded` says otherwise), else the seconds to wait (nothing counted).
    static func take(_ kind: Kind, account: String, address: String?, now: Date, gate: WriteGate, on db: any Database) async throws -> Int {
        let keys = keys(kind, account: account, address: address)
        return try await gate.transaction(on: db) { db in
            let lock = Dialect(db).forUpdate
            var rows: [Row] = []
            for (key, _) in keys {
                // The row exists before it is locked, so two first attempts cannot both miss it.
                try await db.sql.raw("""
                    INSERT INTO login_failures (key, failures, locked_until, last_failure_at)
                    VALUES (\(bind: key), 0, NULL, \(bind: now)) ON CONFLICT (key) DO NOTHING
                    """).run()
                guard let row = try await db.sql.raw("SELECT failures, locked_until, last_failure_at FROM login_failures WHERE key = \(bind: key) \(lock)")
                    .first(decoding: Row.self) else { return 1 }
                rows.append(row)
            }
            let longest = rows.compactMap { $0.locked_until.map { $0.timeIntervalSince(now) } }.max() ?? 0
            if longest > 0 { return max(1, Int((longest - 0.01).rounded(.up))) }
            for ((key, free), row) in zip(keys, rows) {
                let quietSince = max(row.last_failure_at, row.locked_until ?? row.last_failure_at)
                let failures = (now.timeIntervalSince(quietSince) >= forgetAfter ? 0 : row.failures) + 1
                let wait = delay(failures: failures, free: free)
                try await db.sql.raw("""
                    UPDATE login_failures SET failures = \(bind: failures), locked_until = \(bind: wait > 0 ? now.addingTimeInterval(wait) : nil),
                      last_failure_at = \(bind: now) WHERE key = \(bind: key)
                    """).run()
            }
            return 0
        }
    }

    /// A correct password: the account's count goes, and the address gets its slot back (one good
    /// account does not reset an address that guesses at others).
    static func succeeded(_ kind: Kind, account: String, address: String?, gate: WriteGate, on db: any Database) async throws {
        let keys = keys(kind, account: account, address: address)
        try await gate.transaction(on: db) { db in
            try await db.sql.delete(from: "login_failures").where("key", .equal, keys[0].key).run()
            if keys.count > 1 {
                try await db.sql.raw("UPDATE login_failures SET failures = failures - 1 WHERE key = \(bind: keys[1].key) AND failures > 0").run()
            }
        }
    }

    /// Seconds until an attempt may be made again, 0 when it may be now (for pages that say so).
    static func wait(_ kind: Kind = .staff, account: String, address: String?, now: Date, on db: any Database) async throws -> Int {
        var longest: TimeInterval = 0
        for (key, _) in keys(kind, account: account, address: address) {
            if let row = try await db.sql.select().columns("failures", "locked_until", "last_failure_at").from("login_failures").where("key", .equal, key)
                .first(decoding: Row.self), let until = row.locked_until, until > now {
                longest = max(longest, until.timeIntervalSince(now))
            }
        }
        return longest > 0 ? max(1, Int((longest - 0.01).rounded(.up))) : 0
    }

    /// Old counts go: a row quiet for `forgetAfter` since its last attempt and its lock (the scheduler's prune).
    static func prune(now: Date, gate: WriteGate, on db: any Database) async throws {
        let cutoff = now.addingTimeInterval(-forgetAfter)
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                DELETE FROM login_failures WHERE last_failure_at < \(bind: cutoff) AND (locked_until IS NULL OR locked_until < \(bind: cutoff))
                """).run()
        }
    }
}

extension Request {
    /// The client's address, for throttling sign-ins (the connection's peer).
    var clientAddress: String? { remoteAddress?.ipAddress }
}
