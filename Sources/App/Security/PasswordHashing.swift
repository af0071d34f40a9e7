import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Vapor

/// Hashing and checking passwords (bcrypt, deliberately slow) on a small thread pool of their own
///: a class signing in at once waits for each other, and no other request waits for them.
/// On the request threads, 24 sign-ins took `/health` from 1.5 ms to 220 ms at p50.
struct PasswordHashing: Sendable {
    let hasher: Application.Password
    let pool: NIOThreadPool
    private let dummy = NIOLockedValueBox<String?>(nil)

    /// Threads for bcrypt: half the cores (one on a 2-core machine), at most four, so the event loops
    /// always keep a core.
    static var threads: Int { min(4, max(1, System.coreCount / 2)) }

    func hash(_ password: String) async throws -> String {
        let hasher = hasher
        return try await pool.runIfActive { try hasher.hash(password) }
    }

    /// A hash of this installation's cost, checked against when the username does not exist, so that
    /// an unknown username takes as long as a wrong password.
    func dummyHash() async throws -> String {
        if let known = dummy.withLockedValue({ $0 }) { return known }
        let made = try await hash("shelfmark-unknown-user-" + Credential.generate(prefix: ""))
        dummy.withLockedValue { $0 = made }
        return made
    }

    /// False for a wrong password and for anything malformed; never a throw.
    func verify(_ password: String, created hash: String) async -> Bool {
        let hasher = hasher
        return (try? await pool.runIfActive { try hasher.verify(password, created: hash) }) == true
    }
}

extension Application {
    private struct PasswordsKey: StorageKey { typealias Value = PasswordHashing }

    /// The installation's password hashing, started with the application and stopped with it.
    /// Made by `configure` (before any request), so never made twice.
    var passwordHashing: PasswordHashing {
        if let existing = storage[PasswordsKey.self] { return existing }
        let pool = NIOThreadPool(numberOfThreads: PasswordHashing.threads)
        pool.start()
        let made = PasswordHashing(hasher: password, pool: pool)
        storage.set(PasswordsKey.self, to: made) { made in try made.pool.syncShutdownGracefully() }
        return made
    }
}

extension Request {
    var passwordHashing: PasswordHashing { application.passwordHashing }
}
