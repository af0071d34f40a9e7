@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLiteNIO
import SQLKit
import Testing
import Vapor

/// The installation's nightly backups: what one holds and how it is checked, what a power cut leaves,
/// the rotation by the clock, who may manage them, and the overview's warnings.
@Suite struct NightlyBackupTests {
    /// A fresh folder in the temporary directory, removed after `body`.
    static func withFolder(_ body: (String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-backups-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await body(folder)
    }

    /// A library with two titles (three copies), two members and a loan.
    static func stocked(_ app: Application) async throws -> Fixture {
        let f = try await Fixture.make(app)
        let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2)
        try await f.addTitle("Krabat", authors: ["Otfried Preußler"])
        try await f.addMember("C-1", "Aoife")
        try await f.addMember("C-2", "Lin")
        #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "C-1", "titleId": momo]).status == .created)
        return f
    }

    @Test func aBackupHoldsTheDatabaseAndEveryLibraryEachReadBack() async throws {
        try await withTestApp { app in
            let f = try await Self.stocked(app)
            try await Self.withFolder { folder in
                #expect(try await f.owner.patch("/api/v1/server/backups", ["folder": folder, "keepDaily": 3]).status == .ok)
                let job = try await f.owner.finished(try await f.owner.post("/api/v1/server/backups"))
                #expect(job.status == .ok, "\(job.json)")
                let report = try #require(job["backup"] as? [String: Any], "\(job.json)")
                #expect(report["libraries"] as? Int == 1 && report["titles"] as? Int == 2 && report["removed"] as? Int == 0)
                let name = try #require(report["name"] as? String)
                let dir = folder + "/" + name
                // Its manifest, and the library's file as a restore reads it.
                let manifest = try JSONDecoder.manifest.decode(NightlyBackup.Manifest.self,
                                                               from: try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json")))
                let file = try #require(manifest.libraries.first)
                #expect(file.id.uuidString.lowercased() == f.libraryID.lowercased())
                #expect((file.titles, file.copies, file.members, file.loans) == (2, 3, 2, 1))
                let backup = try Backup.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file.file)))
                #expect(backup.titles.map(\.title).sorted() == ["Krabat", "Momo"] && backup.loans.count == 1)
                if MigratedTemplate.postgresURL == nil {
                    // The database copy opens on its own, whole.
                    #expect(manifest.database == "sqlite" && manifest.databaseCounts?["titles"] == 2 && manifest.databaseCounts?["loans"] == 1)
                    let copy = try await SQLiteConnection.open(storage: .file(path: dir + "/shelfmark.sqlite"), threadPool: app.threadPool,
                                                               logger: app.logger, on: app.eventLoopGroup.any())
                    let check = try await copy.query("PRAGMA integrity_check").first?.column("integrity_check")?.string
                    let members = try await copy.query("SELECT COUNT(*) AS n FROM members").first?.column("n")?.integer
                    try await copy.close()
                    #expect(check == "ok" && members == 2)
                } else {
                    #expect(manifest.database == "postgresql" && !FileManager.default.fileExists(atPath: dir + "/shelfmark.sqlite"))
                }
                // The status says it, and nothing is wrong.
                let status = try await f.owner.get("/api/v1/server/backups")
                #expect(status.string("folder") == folder && status["folderIsDefault"] as? Bool == false && status["keepDaily"] as? Int == 3)
                #expect((status["backups"] as? [[String: Any]])?.map { $0["name"] as? String } == [name])
                #expect(status["warnings"] as? [String] == [] && status["lastGoodAt"] as? String != nil)
                if MigratedTemplate.postgresURL != nil {
                    let command = status.string("pgDumpCommand")
                    #expect(command.hasPrefix("pg_dump --format=custom") && !command.contains("password="))
                }
            }
        }
    }

    @Test func aPowerCutLeavesTheEarlierBackupsAndTheNextRunSucceeds() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            _ = try await Self.stocked(app)
            try await Self.withFolder { folder in
                let rotation = BackupRotation()
                let first = try await NightlyBackup.make(into: folder, rotation: rotation, zone: .current, app: app)
                let kept = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + first.name + "/manifest.json"))
                // What a run killed half-way leaves: its unfinished folder, a file cut short, no manifest.
                let dead = folder + "/" + NightlyBackup.incompletePrefix + "shelfmark-2026-01-01T020000Z"
                try FileManager.default.createDirectory(atPath: dead + "/libraries", withIntermediateDirectories: true)
                try Data("{\"format\":\"shelfmark-lib".utf8).write(to: URL(fileURLWithPath: dead + "/libraries/cut.json"))
                #expect(NightlyBackup.list(folder).map(\.name) == [first.name])
                // While a run holds the folder, another is refused and changes nothing.
                let held = try FolderLock(folder)
                await #expect(throws: NightlyBackupError.alreadyRunning) {
                    _ = try await NightlyBackup.make(into: folder, rotation: rotation, zone: .current, app: app)
                }
                held.release()
                #expect(FileManager.default.fileExists(atPath: dead))
                #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + first.name + "/manifest.json")) == kept)
                // The next night's run: the dead folder is gone, the first backup is as it was, the new one is whole.
                clock.advance(days: 1)
                let second = try await NightlyBackup.make(into: folder, rotation: rotation, zone: .current, app: app)
                #expect(!FileManager.default.fileExists(atPath: dead))
                #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + first.name + "/manifest.json")) == kept)
                #expect(NightlyBackup.list(folder).map(\.name) == [second.name, first.name])
                let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".lock") }.sorted()
                #expect(left == [first.name, second.name].sorted())
            }
        }
    }

    @Test func theRotationKeepsWhatItPromisesAsTheDaysGoBy() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            _ = try await Fixture.make(app)
            try await Self.withFolder { folder in
                let rotation = BackupRotation(daily: 3, weekly: 2, monthly: 2)
                let zone = TimeZone(identifier: "UTC")!
                var made: [Date] = []
                for _ in 0..<45 {
                    clock.advance(days: 1)
                    made.append(clock.now)
                    _ = try await NightlyBackup.make(into: folder, rotation: rotation, zone: zone, app: app)
                }
                let left = NightlyBackup.list(folder).map(\.madeAt)
                let promised = rotation.keep(made, in: zone)
                #expect(left.map { Int($0.timeIntervalSince1970) } == promised.map { Int($0.timeIntervalSince1970) })
                #expect(left.count >= 3 && left.count <= rotation.most)
                // The three newest days are all there.
                #expect(Array(left.prefix(3)).map { Int($0.timeIntervalSince1970) } == made.suffix(3).reversed().map { Int($0.timeIntervalSince1970) })
            }
        }
    }

    @Test func onlyTheAdministratorManagesBackupsAndABadFolderIsRefusedByItsField() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let librarian = try await f.staff("lib", role: "librarian")
            #expect(try await librarian.get("/api/v1/server/backups").status == .forbidden)
            #expect(try await librarian.patch("/api/v1/server/backups", ["hour": 3]).status == .forbidden)
            #expect(try await librarian.post("/api/v1/server/backups").status == .forbidden)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = librarian.token!
            let library = try #require(UUID(uuidString: f.libraryID))
            #expect(try await browser.get(WebRoute.backups(library: library).path).status == .forbidden)
            #expect(try await browser.get(WebRoute.more(library: library).path).html.contains(WebRoute.backups(library: library).path) == false)

            for (folder, code) in [("backups/here", "backup_folder_not_absolute"), ("/etc/shelfmark", "backup_folder_forbidden"),
                                   ("/", "backup_folder_forbidden"), ("/tmp/../etc", "backup_folder_forbidden"),
                                   ("/nowhere-\(UUID().uuidString)", "backup_folder_missing")] {
                let reply = try await f.owner.patch("/api/v1/server/backups", ["folder": folder])
                // A path that is not one is invalid input; a path the machine cannot use conflicts with its state.
                #expect(reply.status == (code == "backup_folder_not_absolute" ? .unprocessableEntity : .conflict) && reply.errorCode == code && reply.errorField == "folder", "\(folder): \(reply.json)")
            }
            let late = try await f.owner.patch("/api/v1/server/backups", ["hour": 24])
            #expect(late.status == .unprocessableEntity && late.errorField == "hour")
            let none = try await f.owner.patch("/api/v1/server/backups", ["keepDaily": 0])
            #expect(none.status == .unprocessableEntity && none.errorField == "keepDaily")
            // Nothing was kept of the refused changes.
            let status = try await f.owner.get("/api/v1/server/backups")
            #expect(status["hour"] as? Int == 2 && status["keepDaily"] as? Int == 7 && status["folderIsDefault"] as? Bool == true)

            // The page: the same refusal next to its field, in the reader's language, the form as typed.
            var owner = Browser(app: app)
            owner.cookies[Credential.cookieName] = f.owner.token!
            owner.language = "de"
            let refused = try await owner.post(WebRoute.backups(library: library).path,
                                               ["folder": "backups/here", "hour": "2", "keepDaily": "7", "keepWeekly": "4", "keepMonthly": "12"])
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.html.contains(Strings(lang: .de)(.errBackupFolderNotAbsolute)) && refused.html.contains("value=\"backups/here\""))
            #expect(try await owner.get(WebRoute.more(library: library).path).html.contains(WebRoute.backups(library: library).path))
        }
    }

    @Test func theOverviewWarnsTheAdministratorWhenNoBackupWasMadeForTwoDays() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            try await Self.withFolder { folder in
                #expect(try await f.owner.patch("/api/v1/server/backups", ["folder": folder]).status == .ok)
                var owner = Browser(app: app)
                owner.cookies[Credential.cookieName] = f.owner.token!
                let stale = Strings(lang: .en)(.backupWarnStale)
                // A new installation has had no night yet: no warning.
                #expect(!(try await owner.get(WebRoute.dashboard(library: library).path).html.contains(stale)))
                clock.advance(days: 3)
                let warned = try await owner.get(WebRoute.dashboard(library: library).path)
                #expect(warned.html.contains(stale) && warned.html.contains(WebRoute.backups(library: library).path))
                #expect(try await f.owner.get("/api/v1/server/backups")["warnings"] as? [String] == ["no_recent_backup"])
                // A librarian's overview does not carry the installation's warnings.
                let librarian = try await f.staff("lib", role: "librarian")
                var other = Browser(app: app)
                other.cookies[Credential.cookieName] = librarian.token!
                #expect(!(try await other.get(WebRoute.dashboard(library: library).path).html.contains(stale)))
                // Back up now from the page: the warning goes, the backup is listed.
                let started = try await owner.post(WebRoute.backupsRun(library: library).path, [:])
                #expect(started.status == .seeOther)
                try await Self.waitForBackups(app)
                let page = try await owner.get(WebRoute.backups(library: library).path)
                #expect(page.status == .ok && !page.html.contains(stale) && page.html.contains(NightlyBackup.name(for: clock.now)))
                #expect(!(try await owner.get(WebRoute.dashboard(library: library).path).html.contains(stale)))
            }
        }
    }

    @Test func aRestoreDrillBringsTheNewestBackupBackAndSaysWhenOneDoesNot() async throws {
        try await withTestApp { app in
            let f = try await Self.stocked(app)
            try await Self.withFolder { folder in
                #expect(try await f.owner.patch("/api/v1/server/backups", ["folder": folder]).status == .ok)
                let none = try await f.owner.post("/api/v1/server/backups/drill")
                #expect(none.status == .conflict && none.errorCode == "no_backup_to_drill", "\(none.json)")
                #expect(try await f.owner.finished(try await f.owner.post("/api/v1/server/backups")).status == .ok)
                // Restored into a scratch database: everything the backup wrote came back.
                let drill = try await f.owner.finished(try await f.owner.post("/api/v1/server/backups/drill"))
                #expect(drill.status == .ok, "\(drill.json)")
                let report = try #require(drill["drill"] as? [String: Any], "\(drill.json)")
                #expect(report["libraries"] as? Int == 1 && report["titles"] as? Int == 2 && report["copies"] as? Int == 3)
                #expect(report["members"] as? Int == 2 && report["loans"] as? Int == 1)
                let status = try await f.owner.get("/api/v1/server/backups")
                #expect((status["lastDrill"] as? [String: Any])?["report"] != nil)
                // The live library is untouched by the drill.
                struct Row: Decodable { var n: Int }
                #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM libraries").first(decoding: Row.self)?.n == 1)

                // A backup that lost a member on the disk after it was written: the drill finds it.
                let newest = try #require(NightlyBackup.list(folder).first)
                let path = folder + "/" + newest.name + "/" + newest.manifest.libraries[0].file
                var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
                json["members"] = (json["members"] as? [[String: Any]])?.filter { $0["card_id"] as? String != "C-2" }
                try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
                let failed = try await f.owner.finished(try await f.owner.post("/api/v1/server/backups/drill"))
                #expect(failed.status == .unprocessableEntity && failed.errorCode == "drill_mismatch", "\(failed.json)")
                var owner = Browser(app: app)
                owner.cookies[Credential.cookieName] = f.owner.token!
                owner.language = "de"
                let page = try await owner.get(WebRoute.backups(library: try #require(UUID(uuidString: f.libraryID))).path)
                #expect(page.html.contains("Die Wiederherstellungsprobe vom") && page.html.contains("Mitglieder 1 von 2"), "\(page.html.suffix(3000))")
            }
        }
    }

    /// Waits until no backup job runs.
    static func waitForBackups(_ app: Application) async throws {
        struct Row: Decodable { var id: UUID }
        let running = try await app.db.sql.raw("SELECT id FROM jobs WHERE kind = 'nightly_backup' AND state = 'running'").all(decoding: Row.self)
        for job in running { await app.jobRunner.wait(job.id) }
    }

    @Test func theNightsRunIsClaimedOnceWhateverTheInstances() async throws {
        try await withTestApp { app in
            _ = try await Fixture.make(app)
            let now = app.clock.now()
            let first = try await NightlyBackups.claim(period: "2026-11-28", now: now, app: app)
            #expect(first != nil)
            try await withSecondInstance(of: app) { second in
                let again = try await NightlyBackups.claim(period: "2026-11-28", now: now, app: second)
                let next = try await NightlyBackups.claim(period: "2026-11-29", now: now, app: second)
                let drill = try await RestoreDrill.claim(period: "2026-11", now: now, app: app)
                let drillAgain = try await RestoreDrill.claim(period: "2026-11", now: now, app: second)
                #expect(again == nil && next != nil && drill != nil && drillAgain == nil)
            }
        }
    }
}
