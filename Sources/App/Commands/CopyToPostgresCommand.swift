import Fluent
import Foundation
import Vapor

/// `shelfmark copy-to-postgres URL`: this SQLite installation into an empty PostgreSQL database, for
/// a district that outgrows one machine. The SQLite file is only read; the server is meant to be
/// stopped meanwhile (what it writes during the copy would stay behind in SQLite).
struct CopyToPostgresCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "url", help: "The empty PostgreSQL database, as postgres://user:password@host/database")
        var url: String
    }

    var help: String {
        "Copy this SQLite installation into an empty PostgreSQL database and check that every row arrived. Stop the server first."
    }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        guard case .sqlite(let path) = app.storageConfig else {
            throw CLIError("This installation already runs on PostgreSQL (DATABASE_URL is set): there is nothing to copy.")
        }
        guard signature.url.hasPrefix("postgres://") || signature.url.hasPrefix("postgresql://") else {
            throw CLIError("The target must be a PostgreSQL URL (postgres://user:password@host/database), not “\(signature.url.prefix(40))”.")
        }
        let started = Date()
        let target = try await Application.make(app.environment)
        let report: DatabaseMove.Report
        let where_ = StorageConfig.postgres(url: signature.url, schema: nil).description
        do {
            try configure(target, storage: .postgres(url: signature.url, schema: nil))
            context.console.print("Copying SQLite at \(path) into \(where_)…")
            try await target.migrateHoldingLock()
            report = try await DatabaseMove.run(from: app.db, to: target.db, logger: app.logger) { context.console.print($0) }
        } catch let refusal as DatabaseMove.Refusal {
            try? await target.asyncShutdown()
            throw CLIError(refusal.description)
        } catch {
            try? await target.asyncShutdown()
            throw error
        }
        try await target.asyncShutdown()
        let seconds = Int(Date().timeIntervalSince(started).rounded())
        context.console.print("Done in \(seconds) s: \(report.rows) rows in \(report.tables.count) tables, every one read back from PostgreSQL and equal to SQLite's.")
        context.console.print("To run on PostgreSQL from now on, set DATABASE_URL to this URL (in /etc/shelfmark/shelfmark.env for the service) and start Shelfmark again. "
                              + "The SQLite file is left as it was.")
    }
}
