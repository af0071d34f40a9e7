import Fluent
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Sends queued messages in the background of `shelfmark serve` (a copy set aside for a hold: the
/// member is told; a message whose sender stopped mid-run): wakes when this process queues one
/// (`doorbell`), else every minute (other instances on one PostgreSQL, leases run out). The daily
/// reminder run sends its own messages; this worker picks up whatever is left.
final class MailWorker: LifecycleHandler, @unchecked Sendable {
    static let doorbell = Wakeup()
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    func didBootAsync(_ app: Application) async throws {
        let loop = Task {
            while !Task.isCancelled {
                // A moment's grace: the transaction that rang the bell commits first.
                try? await Task.sleep(for: .milliseconds(200))
                do {
                    try await Self.drain(app: app)
                } catch {
                    if Task.isCancelled { break }
                    app.logger.warning("mail worker: \(String(describing: error))")
                }
                await Self.doorbell.wait(upTo: .seconds(60))
            }
        }
        task.withLockedValue { $0 = loop }
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

    func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { t -> Task<Void, Never>? in let r = t; t = nil; return r }
        running?.cancel()
        await running?.value
    }
}
