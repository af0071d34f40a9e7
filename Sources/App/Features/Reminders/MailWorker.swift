import Fluent
import Foundation
import SQLKit
import Vapor

/// Sends queued messages in the background of `shelfmark serve` (a copy set aside for a hold: the
/// member is told; a message whose sender stopped mid-run): wakes when this process queues one
/// (`doorbell`), else every minute (other instances on one PostgreSQL, leases run out). The daily
/// reminder run sends its own messages; this worker picks up whatever is left.
enum MailWorker {
    static let doorbell = Wakeup()

    static func loop() -> BackgroundLoop {
        BackgroundLoop("mail worker", longestWait: .seconds(60), doorbell: doorbell) { app in
            // A moment's grace: the transaction that rang the bell commits first.
            try await Task.sleep(for: .milliseconds(200))
            try await drain(app: app)
            return .seconds(60)
        }
    }

    /// Delivers every library's waiting messages, one connection per library.
    static func drain(app: Application) async throws {
        struct Row: Decodable { var library_id: UUID }
        let now = app.clock.now()
        let libraries = try await app.db.sql.raw("""
            SELECT DISTINCT library_id FROM mail_messages
            WHERE status = 'queued' OR (status = 'sending' AND lease_until < \(bind: now))
            """).all(decoding: Row.self)
        for library in libraries {
            try await Mailer.deliver(library: library.library_id, app: app)
        }
    }
}
