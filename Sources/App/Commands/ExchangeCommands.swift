import Fluent
import NIOConcurrencyHelpers
import Foundation
import ShelfmarkCore
import Vapor

/// The library a command works on: by name, created when `create` and missing (a fresh data
/// directory needs no account: `user create --library NAME` can join it later).
enum CommandLibrary {
    static func context(named name: String?, create: Bool, app: Application) async throws -> LibraryContext {
        let libraries = try await Library.query(on: app.db).all()
        let library: Library
        if let name {
            if let found = libraries.first(where: { $0.name == name }) {
                library = found
            } else if create {
                let new = Library(name: name)
                try await app.writeGate.transaction(on: app.db) { db in try await new.create(on: db) }
                library = new
            } else {
                throw CLIError("No library named “\(name)”. Libraries: \(libraries.map(\.name).joined(separator: ", ")).")
            }
        } else if libraries.count == 1, let only = libraries.first {
            library = only
        } else if libraries.isEmpty {
            throw CLIError("There is no library yet: name one with --library NAME.")
        } else {
            throw CLIError("Say which library with --library NAME (one of: \(libraries.map(\.name).joined(separator: ", "))).")
        }
        return try context(library)
    }

    static func context(_ library: Library) throws -> LibraryContext {
        LibraryContext(libraryID: try library.requireID(), name: library.name,
                              policy: LoanPolicy(loanPeriodDays: library.loanPeriodDays, maxRenewals: library.maxRenewals), role: .owner,
                              user: AuthenticatedUser(id: UUID(), username: "command line", displayName: "Command line"))
    }
}

extension CommandLibrary {
    /// A library the command line made gets an owner, so someone can open it: the account named by
    /// `--owner`, else the installation's administrator. On a fresh data directory with no account
    /// yet, the first owner to set up adopts it (`Accounts.setup`).
    static func giveOwner(_ libraryID: UUID, owner username: String?, app: Application) async throws -> String? {
        let user: User?
        if let username {
            guard let named = try await User.query(on: app.db).filter(\.$username == username.lowercased()).first() else {
                throw CLIError("No account “\(username)”: create it with `shelfmark user create`, or leave out --owner.")
            }
            user = named
        } else {
            user = try await User.query(on: app.db).filter(\.$isAdmin == true).sort(\.$createdAt).first()
        }
        guard let user, let userID = user.id else { return nil }
        try await app.writeGate.transaction(on: app.db) { db in
            let has = try await Membership.query(on: db).filter(\.$user.$id == userID).filter(\.$library.$id == libraryID).count() > 0
            if !has { try await Membership(userID: userID, libraryID: libraryID, role: .owner).create(on: db) }
        }
        return user.username
    }
}

/// `shelfmark import FILE [--format F] [--library NAME] [--existing skip|copies]`: imports and prints the report.
struct ImportCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "file", help: "The file to import")
        var file: String
        @Option(name: "format", help: "csv, wishlist-csv, goodreads, librarything, librarything-json, storygraph, libib, calibre, generic, isbn-list, marc, marcxml (default: detect)")
        var format: String?
        @Option(name: "library", short: "l", help: "The library (created when it does not exist)")
        var library: String?
        @Option(name: "existing", help: "An ISBN the library has: skip (default) or copies")
        var existing: String?
        @Option(name: "owner", help: "The account that owns a library this import creates (default: the administrator)")
        var owner: String?
    }

    var help: String { "Import books from a file (Goodreads, LibraryThing, CSV, ISBN list …) and print the report." }

    /// Imports as a job of the library, as an upload does: one job per library holds for the
    /// command line too, so an import while another job writes the library is refused with why instead
    /// of failing half-way on a locked database; the job shows on the library's Background work page.
    static func importAsJob(file: URL, format: ImportFormat?, existing: ExistingISBNPolicy, library ctx: LibraryContext,
                            app: Application) async throws -> ImportReport {
        let now = app.clock.now()
        let id = try await Jobs.begin(.importFile, library: ctx.libraryID, target: ctx.libraryID, user: nil, now: now, app: app)
        return try await Jobs.runHere(id, app: app) {
            let report = try await Importer.run(file: file, format: format, existing: existing, library: ctx, app: app, now: now) { progress in
                try? await Jobs.progress(id, rows: progress.rowsRead, titles: progress.titlesCreated, copies: progress.copiesAdded, app: app)
            }
            return (report, ImportJob.Outcome(report: report, library: nil))
        }
    }

    /// The report's notes for a terminal: the first 20 one per line, the rest summed up by reason (a
    /// re-run of a 100,000-row import skips every row: that is one line, not 100,000).
    static func noteLines(_ notes: [ImportRowNote], verb: String, unit: String, shown: Int = 20) -> [String] {
        var lines = notes.prefix(shown).map { "  \(unit) \($0.line): \(verb): \($0.reason)" }
        let rest = notes.dropFirst(shown)
        guard !rest.isEmpty else { return lines }
        // Reasons with their numbers taken out ("ISBN 978-… is already here" for every ISBN) are counted together.
        var counts: [String: Int] = [:]
        for note in rest {
            let key = note.reason.replacing(/[0-9][0-9X-]*/, with: "…")
            counts[key, default: 0] += 1
        }
        lines.append("  … and \(rest.count) more \(verb) \(unit)s:")
        for (reason, n) in counts.sorted(by: { $0.value > $1.value }).prefix(10) { lines.append("      \(n) × \(reason)") }
        if counts.count > 10 { lines.append("      (\(counts.count - 10) other reasons)") }
        return lines
    }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        guard FileManager.default.isReadableFile(atPath: signature.file) else { throw CLIError("Cannot read \(signature.file): no such file, or not readable.") }
        let format = try signature.format.map { raw in
            guard let f = ImportFormat(rawValue: raw) else { throw CLIError("Unknown format “\(raw)”: use one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).") }
            return f
        }
        let existing = try signature.existing.map { raw in
            guard let p = ExistingISBNPolicy(rawValue: raw) else { throw CLIError("--existing is skip or copies, got “\(raw)”.") }
            return p
        } ?? .skip
        let existed = try await Library.query(on: app.db).filter(\.$name == (signature.library ?? "")).count() > 0
        let ctx = try await CommandLibrary.context(named: signature.library, create: true, app: app)
        if !existed, signature.library != nil {
            if let owner = try await CommandLibrary.giveOwner(ctx.libraryID, owner: signature.owner, app: app) {
                context.console.print("Created “\(ctx.name)”, owned by \(owner).")
            }
        }
        let report: ImportReport
        let started = ContinuousClock.now
        do {
            report = try await Self.importAsJob(file: URL(fileURLWithPath: signature.file), format: format, existing: existing, library: ctx, app: app)
        } catch let error where error.answered.status.code < 500 {
            throw CLIError(error.answered.message)
        }
        let seconds = (ContinuousClock.now - started).seconds
        context.console.print("Imported \(signature.file) into “\(ctx.name)” (\(report.format), \(report.encoding)):")
        context.console.print("  rows read       \(report.rowsRead)")
        context.console.print("  titles created  \(report.titlesCreated)")
        context.console.print("  copies added    \(report.copiesAdded)")
        context.console.print("  skipped         \(report.skipped.count)")
        context.console.print("  failed          \(report.failed.count)")
        context.console.print("  time            \(String(format: "%.3f", seconds)) s (\(Int(Double(report.rowsRead) / max(seconds, 0.000_001))) rows/s)")
        for line in Self.noteLines(report.skipped, verb: "skipped", unit: report.unit.rawValue) { context.console.print(line) }
        for line in Self.noteLines(report.failed, verb: "failed", unit: report.unit.rawValue) { context.console.print(line) }
        if let stopped = report.stoppedAt { context.console.print("  stopped: \(stopped)") }
    }
}

/// `shelfmark export --format csv|wishlist-csv|json|marc|marcxml [--library NAME] [--output FILE]`.
struct ExportCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "format", help: "csv (default), wishlist-csv, json, marc or marcxml")
        var format: String?
        @Option(name: "library", short: "l", help: "The library")
        var library: String?
        @Option(name: "output", short: "o", help: "Write to this file instead of standard output")
        var output: String?
    }

    var help: String { "Export the catalog (CSV, MARC 21, MARCXML), the wishlist (CSV) or the whole library (JSON)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let ctx = try await CommandLibrary.context(named: signature.library, create: false, app: app)
        let raw = signature.format ?? "csv"
        guard let format = ExportFormat(rawValue: raw) else { throw CLIError("--format is one of \(ExportFormat.list); got “\(raw)”.") }
        let started = ContinuousClock.now
        let data = try await Exporter.export(format, libraryID: ctx.libraryID, now: app.clock.now(), on: app.db)
        if let path = signature.output {
            do { try writePrivately(data, to: path) } catch { throw CLIError("Cannot write \(path): \(error.localizedDescription)") }
            let seconds = (ContinuousClock.now - started).seconds
            context.console.print("Wrote \(path) (\(format.fileName), \(data.count) bytes) in \(String(format: "%.3f", seconds)) s")
        } else {
            FileHandle.standardOutput.write(data)
        }
    }
}

/// `shelfmark backup [--library NAME] [--output FILE]`: one timestamped file with the whole library.
/// `shelfmark backup --all [--folder PATH]`: the nightly backup of the whole installation, now.
struct BackupCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "library", short: "l", help: "The library")
        var library: String?
        @Option(name: "output", short: "o", help: "The file (default: shelfmark-backup-<library>-<time>.json here)")
        var output: String?
        @Flag(name: "all", help: "Back up the whole installation as the nightly backup does, into the backup folder")
        var all: Bool
        @Option(name: "folder", help: "With --all: this folder instead of the backup folder (it must exist)")
        var folder: String?
    }

    var help: String { "Write a backup of a library (everything, cover images included) to one file, or of the whole installation (--all)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        if signature.all {
            let report: NightlyBackup.Report
            if let folder = signature.folder {
                let checked = try NightlyBackupSettings.checkFolder(folder) ?? folder
                report = try await NightlyBackup.make(into: checked, rotation: try await NightlyBackupSettings.load(on: app.db).rotation,
                                                      zone: .current, app: app)
            } else {
                report = try await NightlyBackup.make(app: app)
            }
            context.console.print("Wrote \(report.folder)/\(report.name): \(report.libraries) libraries, \(report.titles) titles, "
                                  + "\(Strings(lang: .en).bytes(report.bytes)), each file read back and checked; \(report.removed) older removed by the rotation.")
            return
        }
        let ctx = try await CommandLibrary.context(named: signature.library, create: false, app: app)
        let now = app.clock.now()
        let backup = try await Backup.make(libraryID: ctx.libraryID, includeCovers: true, now: now, on: app.db)
        let path = signature.output ?? ExchangeController.backupFileName(ctx.name, at: now)
        do { try writePrivately(Backup.encode(backup), to: path) } catch { throw CLIError("Cannot write \(path): \(error.localizedDescription)") }
        context.console.print("Wrote \(path): \(backup.titles.count) titles, \(backup.copies.count) copies, \(backup.members.count) members, \(backup.loans.count) loans, \(backup.covers?.count ?? 0) covers.")
    }
}

/// `shelfmark restore FILE [--library NAME] [--replace]`: a backup into a new library (named as in the
/// backup, or NAME), or with `--replace` over the existing library NAME (its data is deleted first).
struct RestoreCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "file", help: "The backup file")
        var file: String
        @Option(name: "library", short: "l", help: "The library to create (or, with --replace, to overwrite)")
        var library: String?
        @Flag(name: "replace", help: "Overwrite the existing library NAME (its current data is deleted)")
        var replace: Bool
        @Option(name: "owner", help: "The account that owns the new library (default: the administrator)")
        var owner: String?
    }

    var help: String { "Restore a backup into a new library, or over an existing one with --replace." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: signature.file)) } catch { throw CLIError("Cannot read \(signature.file): \(error.localizedDescription)") }
        let backup: LibraryBackup
        do { backup = try Backup.decode(data) } catch let error where error.answered.status.code < 500 { throw CLIError(error.answered.message) }
        let name = signature.library ?? backup.library.name
        let existing = try await Library.query(on: app.db).filter(\.$name == name).first()
        var leftOut = Backup.LeftOut()
        if signature.replace {
            guard let existing else { throw CLIError("No library named “\(name)” to replace.") }
            do {
                leftOut = try await Self.restoreOverAsJob(backup, library: try existing.requireID(), app: app)
            } catch let error where error.answered.status.code < 500 {
                throw CLIError(error.answered.message)
            }
        } else {
            guard existing == nil else { throw CLIError("A library named “\(name)” exists: name another with --library, or overwrite it with --replace.") }
            let library = Library(name: name)
            try await app.writeGate.transaction(on: app.db) { db in try await library.create(on: db) }
            let id = try library.requireID()
            do {
                leftOut = try await Backup.restore(backup, into: id, on: app.db, batches: app.writeGate)
            } catch {
                await Accounts.removeNewLibrary(id, gate: app.writeGate, on: app.db)
                if error.answered.status.code < 500 { throw CLIError(error.answered.message) }
                throw error
            }
            if let owner = try await CommandLibrary.giveOwner(id, owner: signature.owner, app: app) {
                context.console.print("“\(name)” is owned by \(owner).")
            } else {
                context.console.print("No account exists yet: the first owner to set up Shelfmark gets “\(name)”.")
            }
        }
        await app.db.settleAfterBulkLoad(titles: backup.titles.count, logger: app.logger)
        context.console.print("Restored “\(name)”: \(backup.titles.count) titles, \(backup.copies.count) copies, \(backup.members.count) members, \(backup.loans.count) loans.")
        if !leftOut.isEmpty {
            context.console.print(JobPage.leftOutText(leftOut, t: Strings(lang: .en)))
        }
    }
}

extension RestoreCommand {
    /// A restore over a library from the command line is a job of that library, as the web's is:
    /// refused while another job writes into it, shown on its Background work page, and written beside
    /// it and swapped in batch by batch (`Backup.restore(_:over:job:…)`), so a running server's other
    /// libraries keep working meanwhile.
    static func restoreOverAsJob(_ backup: LibraryBackup, library: UUID, app: Application) async throws -> Backup.LeftOut {
        let id = try await Jobs.begin(.restore, library: library, target: library, user: nil, now: app.clock.now(), app: app)
        return try await Jobs.runHere(id, app: app) {
            let leftOut = try await Backup.restore(backup, over: library, job: id, gate: app.writeGate, on: app.db, logger: app.logger)
            guard let restored = try await Library.find(library, on: app.db) else { throw AccountError.libraryNotFound }
            return (leftOut, RestoreJob.Outcome(library: restored.dto(role: .owner), leftOut: leftOut))
        }
    }
}

/// Writes a file only its owner can read (a backup holds members' names and contact details).
func writePrivately(_ data: Data, to path: String) throws {
    if !FileManager.default.fileExists(atPath: path) {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CLIError("Cannot create \(path).")
        }
    }
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    try data.write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
}
