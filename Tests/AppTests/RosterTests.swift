@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import ZIPFoundation

/// The school year's roster sync: a OneRoster bundle from the school's records is previewed (nothing
/// changes), then applied in one go; a later full roster archives who is missing (they keep their
/// loans and counts, borrow nothing, leave the lists); the audit log says who did it and cannot be
/// changed.
@Suite struct RosterTests {
    static let manifest = "propertyName,value\noneroster.version,1.1\nfile.users,bulk\nfile.classes,bulk\nfile.enrollments,bulk\n"
    static let classes = "sourcedId,status,title,classType\nc-3a,,3A,homeroom\nc-4b,,4B,homeroom\n"
    static let usersHeader = "sourcedId,status,enabledUser,role,givenName,familyName,identifier,email,agentSourcedIds,grades\n"

    /// A zip of `files`, as a school's system writes one.
    static func zip(_ files: [String: String]) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            let data = Data(text.utf8)
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try #require(archive.data)
    }

    static func bundle(users: [String], enrollments: [String]) throws -> Data {
        try zip(["oneroster/manifest.csv": manifest, "oneroster/classes.csv": classes,
                 "oneroster/users.csv": usersHeader + users.joined(separator: "\n") + "\n",
                 "oneroster/enrollments.csv": "sourcedId,classSourcedId,userSourcedId,role\n" + enrollments.joined(separator: "\n") + "\n"])
    }

    @Test func aSeptemberRosterIsPreviewedThenAppliedAndAJuneRosterArchivesWhoLeft() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_788_000_000))
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            // Before the sync: a member the librarian added with the student number as the card, and one
            // added by hand who is in no school record.
            let ada = try await owner.post("\(f.lib)/members", ["cardId": "1001", "firstName": "Ada", "lastName": "L", "grade": "2A"])
            #expect(ada.status == .created)
            #expect(try await owner.post("\(f.lib)/members", ["cardId": "X9", "firstName": "Visitor"]).status == .created)

            let september = try Self.bundle(users: [
                "u-ada,,true,student,Ada,Lovelace,1001,ada@school.example,u-mum,03",
                "u-ben,,true,student,Ben,Okafor,1002,,,03",
                "u-cem,,true,student,Cem,Yilmaz,1003,,,04",
                "u-mum,,true,guardian,Mary,Lovelace,,mary@home.example,,",
                "u-kim,,true,teacher,Kim,Teacher,T1,kim@school.example,,",
                "u-dan,,true,student,Dan,Bad,1004,not-an-address,,03",
            ], enrollments: ["e1,c-3a,u-ada,student", "e2,c-3a,u-ben,student", "e3,c-4b,u-cem,student", "e4,c-3a,u-kim,teacher",
                             "e5,c-3a,u-dan,student"])
            let preview = try await owner.send(.POST, "\(f.lib)/roster/preview?fileName=september.zip", rawBody: september, contentType: "application/zip")
            #expect(preview.status == .created, "\(preview.json)")
            let plan = try #require(preview["plan"] as? [String: Any])
            #expect((plan["added"] as? [[String: Any]])?.map { $0["card"] as? String } == ["1002", "1003"])
            let changed = try #require(plan["changed"] as? [[String: Any]])
            #expect(changed.count == 1 && changed[0]["card"] as? String == "1001")
            let fields = (changed[0]["changes"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
            #expect(fields == ["lastName", "grade", "email", "guardianEmail", "rosterId"])
            #expect((plan["leaving"] as? [Any])?.isEmpty == true && plan["withoutSchoolID"] as? Int == 1 && plan["teachers"] as? Int == 1)
            let refused = try #require(plan["refused"] as? [[String: Any]])
            #expect(refused.count == 1 && refused[0]["line"] as? Int == 7 && refused[0]["code"] as? String == "invalid_email"
                    && refused[0]["file"] as? String == "users.csv")
            // A preview changes nothing.
            #expect(try await owner.get("\(f.lib)/members").array.count == 2)

            let runID = preview.string("id")
            let applied = try await owner.post("\(f.lib)/roster/runs/\(runID)/apply")
            #expect(applied.status == .ok, "\(applied.json)")
            #expect(applied["appliedBy"] as? String == "owner")
            // Sent twice, applied once.
            let again = try await owner.post("\(f.lib)/roster/runs/\(runID)/apply")
            #expect(again.status == .conflict && again.errorCode == "already_applied")
            let members = try await owner.get("\(f.lib)/members?sort=card").array
            #expect(members.map { $0["cardId"] as? String } == ["1001", "1002", "1003", "X9"])
            #expect(members[0]["lastName"] as? String == "Lovelace" && members[0]["grade"] as? String == "3A"
                    && members[0]["guardianEmail"] as? String == "mary@home.example" && members[0]["rosterId"] as? String == "u-ada")
            #expect(members[2]["grade"] as? String == "4B")

            // Cem borrows a book and keeps it; Ben borrows and returns one.
            let momo = try await f.addTitle("Momo")
            let holes = try await f.addTitle("Holes")
            let cemLoan = try await owner.post("\(f.lib)/checkouts", ["cardId": "1003", "titleId": momo])
            #expect(cemLoan.status == .created)
            let benLoan = try await owner.post("\(f.lib)/checkouts", ["cardId": "1002", "titleId": holes])
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": benLoan.string("copyBarcode")]).status == .ok)
            let circulation = "\(f.lib)/reports/circulation?period=this-year"

            // June: Cem has left the school; Dan's row is still refused, so Dan is no leaver either.
            clock.advance(days: 2)
            let june = try Self.bundle(users: [
                "u-ada,,true,student,Ada,Lovelace,1001,ada@school.example,u-mum,03",
                "u-ben,,true,student,Ben,Okafor,1002,,,03",
                "u-mum,,true,guardian,Mary,Lovelace,,mary@home.example,,",
                "u-dan,,true,student,Dan,Bad,1004,not-an-address,,03",
            ], enrollments: ["e1,c-3a,u-ada,student", "e2,c-4b,u-ben,student"])
            let junePreview = try await owner.send(.POST, "\(f.lib)/roster/preview", rawBody: june, contentType: "application/zip")
            #expect(junePreview.status == .created, "\(junePreview.json)")
            let junePlan = try #require(junePreview["plan"] as? [String: Any])
            let leaving = try #require(junePlan["leaving"] as? [[String: Any]])
            #expect(leaving.map { $0["card"] as? String } == ["1003"])
            #expect(leaving.first?["loansOut"] as? [String] == ["Momo"], "a leaver's books still out are listed to follow up")
            #expect((junePlan["changed"] as? [[String: Any]])?.map { $0["card"] as? String } == ["1002"], "Ben moved to 4B")
            let before = try await owner.get(circulation)
            #expect(before.status == .ok)
            #expect(try await owner.post("\(f.lib)/roster/runs/\(junePreview.string("id"))/apply").status == .ok)

            // Cem is archived: not listed, borrows nothing, renews nothing, holds nothing; returns still work.
            #expect(try await owner.get("\(f.lib)/members?sort=card").array.compactMap { $0["cardId"] as? String } == ["1001", "1002", "X9"])
            let former = try await owner.get("\(f.lib)/members?archived=true").array
            #expect(former.map { $0["cardId"] as? String } == ["1003"] && former.first?["archivedAt"] != nil)
            let refusedLoan = try await owner.post("\(f.lib)/checkouts", ["cardId": "1003", "titleId": holes])
            #expect(refusedLoan.status == .conflict && refusedLoan.errorCode == "member_archived", "\(refusedLoan.json)")
            let renew = try await owner.post("\(f.lib)/loans/\(cemLoan.string("id"))/renew")
            #expect(renew.status == .conflict && renew.errorCode == "member_archived", "\(renew.json)")
            let hold = try await owner.post("\(f.lib)/holds", ["cardId": "1003", "titleId": holes])
            #expect(hold.status == .conflict && hold.errorCode == "member_archived", "\(hold.json)")
            // The year's figures stay as they were.
            let after = try await owner.get(circulation)
            #expect(after.status == .ok && NSDictionary(dictionary: after.json).isEqual(to: before.json), "the year's figures changed")
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": cemLoan.string("copyBarcode")]).status == .ok)
            // Back by hand, and the runs listed with their counts.
            clock.advance(days: 1)
            let cem = try #require(former.first?["id"] as? String)
            #expect(try await owner.delete("\(f.lib)/members/\(cem)/archive")["archivedAt"] == nil)
            let runs = try await owner.get("\(f.lib)/roster/runs").array
            #expect(runs.count == 2)
            #expect(((runs.first?["plan"] as? [String: Any])?["counts"] as? [String: Any])?["leaving"] as? Int == 1)

            // The audit log: the owner reads who did what; a librarian may not; nobody changes it.
            let audit = try await owner.get("\(f.lib)/audit").array
            #expect(audit.map { $0["action"] as? String } == ["member_unarchived", "roster_applied", "roster_applied"])
            #expect(audit[1]["actor"] as? String == "owner" && (audit[1]["detail"] as? [String: String])?["archived"] == "1")
            let librarian = try await f.staff("lib", role: "librarian")
            #expect(try await librarian.get("\(f.lib)/audit").status == .forbidden)
            #expect(try await owner.get("\(f.lib)/audit?action=staff_added").array.map { $0["target"] as? String } == ["lib"])
            let sql = app.db as! any SQLDatabase
            await #expect(throws: (any Error).self) { try await sql.raw("UPDATE audit_log SET actor = 'someone else'").run() }
            await #expect(throws: (any Error).self) { try await sql.raw("DELETE FROM audit_log").run() }
            #expect(try await owner.get("\(f.lib)/audit").array.count == 4)
        }
    }

    @Test func teachersBecomeStaffOnAnOwnersWordAndAClassTeacherSeesTheirClassOnly() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let librarian = try await f.staff("lib", role: "librarian")
            let bundle = try Self.bundle(users: [
                "u-ada,,true,student,Ada,Lovelace,1001,,,03", "u-cem,,true,student,Cem,Yilmaz,1003,,,04",
                "u-kim,,true,teacher,Kim,Teacher,T1,Kim@School.example,,", "u-noa,,true,teacher,Noa,Nomail,T2,,,",
            ], enrollments: ["e1,c-3a,u-ada,student", "e2,c-4b,u-cem,student", "e3,c-3a,u-kim,teacher", "e4,c-4b,u-noa,teacher"])
            let preview = try await f.owner.send(.POST, "\(f.lib)/roster/preview?fileName=staff.zip", rawBody: bundle, contentType: "application/zip")
            #expect(preview.status == .created, "\(preview.json)")
            let teachers = try #require((preview["plan"] as? [String: Any])?["teacherAccounts"] as? [[String: Any]])
            #expect(teachers.map { $0["account"] as? String } == ["new", "no_email"], "\(teachers)")
            #expect(teachers.first?["email"] as? String == "kim@school.example" && teachers.first?["classes"] as? [String] == ["3A"])
            let run = preview.string("id")

            // Making staff is an owner's decision: a librarian applying with a role is refused, and nothing changed.
            let refused = try await librarian.post("\(f.lib)/roster/runs/\(run)/apply", ["teachersAs": "viewer"])
            #expect(refused.status == .forbidden, "\(refused.json)")
            let applied = try await f.owner.post("\(f.lib)/roster/runs/\(run)/apply", ["teachersAs": "viewer"])
            #expect(applied.status == .ok, "\(applied.json)")
            #expect((applied["plan"] as? [String: Any])?["staffAdded"] as? Int == 1)
            let staff = try await f.owner.get("\(f.lib)/staff").array
            let kim = try #require(staff.first { $0["email"] as? String == "kim@school.example" })
            #expect(kim["role"] as? String == "viewer" && kim["displayName"] as? String == "Kim Teacher")
            #expect(staff.count == 3, "the owner, the librarian and Kim; Noa has no e-mail")
            #expect(try await f.owner.get("\(f.lib)/audit").array.contains { $0["action"] as? String == "staff_added" && $0["target"] as? String == kim["username"] as? String })

            // Ada (3A) and Cem (4B) each borrow a book.
            for card in ["1001", "1003"] {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": try await f.addTitle("Book for \(card)")]).status == .created)
            }
            // Kim signs in (as the school's sign-in would make her session): her class's readers report, nothing else.
            let user = try #require(try await User.query(on: app.db).filter(\.$email == "kim@school.example").first())
            let kimClient = Client(app: app, token: try await Accounts.startSession(for: user, now: Date(), gate: app.writeGate, on: app.db).token)
            let readers = try await kimClient.get("\(f.lib)/reports/readers?period=this-year&class=4B")
            #expect(readers.status == .ok, "\(readers.json)")
            let text = String(buffer: readers.body)
            #expect(text.contains("Ada") && !text.contains("Cem"), "3A only, whatever class was asked for")
            #expect(try await kimClient.get("\(f.lib)/reports/circulation?period=this-year").status == .forbidden)
            let everyone = String(buffer: try await f.owner.get("\(f.lib)/reports/readers?period=this-year").body)
            #expect(everyone.contains("Ada") && everyone.contains("Cem"))
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = kimClient.token
            #expect(try await browser.get("/libraries/\(f.libraryID)/more").html.contains("/reports/readers"))
            // Her page: her classes the only choice, no other report to switch to, nothing to save.
            let page = try await browser.get("/libraries/\(f.libraryID)/reports/readers?class=4B")
            #expect(page.status == .ok && page.html.contains("Ada") && !page.html.contains("Cem"))
            #expect(!page.html.contains("/reports/circulation") && !page.html.contains("value=\"4B\"") && !page.html.contains("/reports/saved"))
            #expect(try await browser.get("/libraries/\(f.libraryID)/reports/circulation").status == .forbidden)

            // Applying a roster again keeps her role; her classes follow the roster.
            let june = try Self.bundle(users: ["u-ada,,true,student,Ada,Lovelace,1001,,,03", "u-kim,,true,teacher,Kim,Teacher,T1,kim@school.example,,"],
                                       enrollments: ["e1,c-3a,u-ada,student", "e3,c-4b,u-kim,teacher"])
            let again = try await f.owner.send(.POST, "\(f.lib)/roster/preview?fileName=june.zip", rawBody: june, contentType: "application/zip")
            #expect(((again["plan"] as? [String: Any])?["teacherAccounts"] as? [[String: Any]])?.first?["account"] as? String == "staff")
            #expect(try await f.owner.post("\(f.lib)/roster/runs/\(again.string("id"))/apply", ["teachersAs": "librarian"]).status == .ok)
            #expect(try await f.owner.get("\(f.lib)/staff").array.first { $0["email"] as? String == "kim@school.example" }?["role"] as? String == "viewer")
            #expect(try await ClassTeachers.classes(of: try user.requireID(), library: try #require(UUID(uuidString: f.libraryID)), on: app.db) == ["4B"])
        }
    }

    @Test func aStudentListWithItsOwnHeadersIsReadAsMappedAndBadFilesAreRefusedWhole() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let csv = Data("Pupil Ref,Given,Family,Tutor Group\n77,Ana,Silva,7X\n78,Bo,Lee,7Y\n".utf8)
            let unmapped = try await f.owner.send(.POST, "\(f.lib)/roster/preview", rawBody: csv, contentType: "text/csv")
            #expect(unmapped.status == .unprocessableEntity && unmapped.errorCode == "missing_columns", "\(unmapped.json)")
            let path = "\(f.lib)/roster/preview?mode=delta&numberColumn=Pupil%20Ref&firstNameColumn=Given&lastNameColumn=Family&gradeColumn=Tutor%20Group"
            let preview = try await f.owner.send(.POST, path, rawBody: csv, contentType: "text/csv")
            #expect(preview.status == .created, "\(preview.json)")
            #expect(preview["mode"] as? String == "delta")
            #expect(((preview["plan"] as? [String: Any])?["added"] as? [[String: Any]])?.map { $0["grade"] as? String } == ["7X", "7Y"])
            #expect(try await f.owner.post("\(f.lib)/roster/runs/\(preview.string("id"))/apply").status == .ok)
            #expect(try await f.owner.get("\(f.lib)/members").array.map { $0["rosterId"] as? String } == ["78", "77"])

            // Not a roster; a zip of nothing useful; a zip that unpacks past the bound; a mode that is none.
            let image = try await f.owner.send(.POST, "\(f.lib)/roster/preview", rawBody: Data("GIF89a".utf8), contentType: "application/octet-stream")
            #expect(image.status == .unprocessableEntity, "\(image.json)")
            let notes = try await f.owner.send(.POST, "\(f.lib)/roster/preview", rawBody: try Self.zip(["a.md": "hello"]), contentType: "application/zip")
            #expect(notes.status == .unprocessableEntity && notes.errorCode == "not_a_roster", "\(notes.json)")
            let bomb = try Self.zip(["users.csv": Self.usersHeader + String(repeating: "u,,true,student,A,B,1,,,\n", count: 3_000_000)])
            #expect(bomb.count < RosterSync.maxBytes)
            let big = try await f.owner.send(.POST, "\(f.lib)/roster/preview", rawBody: bomb, contentType: "application/zip")
            #expect(big.status == .payloadTooLarge && big.errorCode == "too_large", "\(big.json)")
            let mode = try await f.owner.send(.POST, "\(f.lib)/roster/preview?mode=sometimes", rawBody: csv, contentType: "text/csv")
            #expect(mode.status == .badRequest && mode.errorField == "mode", "\(mode.json)")
            #expect(try await f.owner.post("\(f.lib)/roster/runs/\(UUID().uuidString)/apply").status == .notFound)
            // A viewer reads no roster.
            let viewer = try await f.staff("v", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/roster/runs").status == .forbidden)
        }
    }
}

/// The year-end rollover: classes move as confirmed, the top year is archived, goals are cleared
/// when asked; the backup taken first is kept; undone in one step, every class is as it was and loans
/// made since stay.
@Suite struct RolloverTests {
    @Test func everyoneMovesUpTheTopYearLeavesAndUndoPutsItBack() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_782_000_000))
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            for (card, grade) in [("A1", "5A"), ("A2", "5A"), ("B1", "5B"), ("C1", "6A"), ("C2", "6A"), ("H1", "Helpers")] {
                #expect(try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": "Pupil \(card)", "grade": grade]).status == .created)
            }
            // A leaver with a book out and a reading goal; another pupil's goal.
            let book = try await f.addTitle("Momo")
            let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": "C1", "titleId": book])
            #expect(loan.status == .created)
            let members = try await owner.get("\(f.lib)/members?sort=card").array
            let id = { (card: String) in members.first { $0["cardId"] as? String == card }?["id"] as? String ?? "" }
            let sql = app.db as! any SQLDatabase
            for card in ["C1", "A1"] {
                try await sql.raw("""
                    INSERT INTO reading_goals (id, library_id, member_id, reader_key, year, books)
                    VALUES (\(bind: UUID()), \(bind: UUID(uuidString: f.libraryID)!), \(bind: UUID(uuidString: id(card))!), \(bind: "m:" + id(card)), 2026, 12)
                    """).run()
            }

            let plan = try await owner.get("\(f.lib)/rollover")
            let classes = try #require(plan["classes"] as? [[String: Any]])
            #expect(classes.map { $0["name"] as? String } == ["5A", "5B", "6A", "Helpers"])
            #expect(classes.map { $0["becomes"] as? String } == ["6A", "6B", nil, "Helpers"])
            #expect(classes.map { $0["leaves"] as? Bool } == [false, false, true, false])
            #expect(classes.map { $0["members"] as? Int } == [2, 1, 2, 1])

            // Refused as a whole: a class nobody is in, a class named twice, one that goes nowhere.
            let unknown = try await owner.post("\(f.lib)/rollover", ["classes": [["from": "9Z", "to": "10Z"]]])
            #expect(unknown.status == .notFound && unknown.errorField == "classes[0].from")
            let twice = try await owner.post("\(f.lib)/rollover", ["classes": [["from": "5A", "to": "6A"], ["from": "5A", "to": "6B"]]])
            #expect(twice.status == .conflict && twice.errorField == "classes[1].from")
            let none = try await owner.post("\(f.lib)/rollover", ["classes": [] as [Any]])
            #expect(none.status == .unprocessableEntity && none.errorField == "classes")
            let untouched = try await owner.get("\(f.lib)/rollover")
            #expect((untouched["rollovers"] as? [Any])?.isEmpty == true, "nothing refused was done")

            let done = try await owner.post("\(f.lib)/rollover", ["classes": [["from": "5A", "to": "6A"], ["from": "5B", "to": "6B"],
                                                                               ["from": "6A", "leave": true]], "clearGoals": true])
            #expect(done.status == .created, "\(done.json)")
            #expect((done["summary"] as? [String: Int]) == ["moved": 3, "archived": 2, "goalsCleared": 2])
            #expect(done["undoable"] as? Bool == true)
            // "5A → 6A" and "6A leaves" in one rollover: the old 6A leaves, the old 5A is the new 6A.
            let after = try await owner.get("\(f.lib)/members?sort=card").array
            #expect(after.map { "\($0["cardId"] as? String ?? "")=\($0["grade"] as? String ?? "")" } == ["A1=6A", "A2=6A", "B1=6B", "H1=Helpers"])
            #expect(try await owner.get("\(f.lib)/members?archived=true").array.map { $0["cardId"] as? String } == ["C1", "C2"])
            #expect(try await owner.get("\(f.lib)/members?q=6A").array.count == 2, "the class is searchable by its new name")
            struct N: Decodable { var n: Int }
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM reading_goals").first(decoding: N.self)?.n == 0)
            // The backup taken first holds the library as it was (owners only).
            let rolloverID = done.string("id")
            let backup = try await owner.get("\(f.lib)/rollovers/\(rolloverID)/backup")
            #expect(backup.status == .ok)
            let before = try Backup.decode(Data(buffer: backup.body))
            #expect(before.members.map(\.grade).sorted { ($0 ?? "") < ($1 ?? "") } == ["5A", "5A", "5B", "6A", "6A", "Helpers"])
            let librarian = try await f.staff("lib", role: "librarian")
            #expect(try await librarian.get("\(f.lib)/rollovers/\(rolloverID)/backup").status == .forbidden)

            // A loan after the rollover stays through the undo.
            clock.advance(days: 1)
            #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": "A1", "titleId": try await f.addTitle("Holes")]).status == .created)
            let undone = try await owner.post("\(f.lib)/rollovers/\(rolloverID)/undo")
            #expect(undone.status == .ok, "\(undone.json)")
            #expect(undone["undoneBy"] as? String == "owner" && undone["undoable"] as? Bool == false)
            let back = try await owner.get("\(f.lib)/members?sort=card").array
            #expect(back.map { "\($0["cardId"] as? String ?? "")=\($0["grade"] as? String ?? "")" } == ["A1=5A", "A2=5A", "B1=5B", "C1=6A", "C2=6A", "H1=Helpers"])
            #expect(back.first { $0["cardId"] as? String == "A1" }?["activeLoans"] as? Int == 1)
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM reading_goals").first(decoding: N.self)?.n == 2)
            let again = try await owner.post("\(f.lib)/rollovers/\(rolloverID)/undo")
            #expect(again.status == .conflict && again.errorCode == "already_undone")
            let audit = try await owner.get("\(f.lib)/audit").array.compactMap { $0["action"] as? String }
            let rollovers: [String] = audit.filter { $0.hasPrefix("rollover") }.sorted()
            #expect(rollovers == ["rollover", "rollover_undone"])
        }
    }
}

/// A member's data on request and their erasure: the export holds every loan, hold, fine, read and
/// message; the erasure is refused while books are out or money is owed, then leaves nothing of the
/// member in the database or the next backup, and every report's totals as they were.
@Suite struct PrivacyTests {
    @Test func theExportHoldsEverythingAndTheErasureLeavesOnlyCounts() async throws {
        let clock = TestClock(Date(timeIntervalSince1970: 1_780_000_000))
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            #expect(try await owner.patch(f.lib, ["fineMode": "money", "finePerDay": 50, "fineGraceDays": 0]).status == .ok)
            let zed = try await owner.post("\(f.lib)/members", ["cardId": "ZQ-77", "firstName": "Zebedee", "lastName": "Quillfeather",
                                                                "grade": "4B", "email": "zebedee@home.example", "notes": "Likes dragons"])
            #expect(zed.status == .created)
            let id = zed.string("id")
            #expect(try await owner.post("\(f.lib)/members", ["cardId": "OT-1", "firstName": "Other", "grade": "4B"]).status == .created)
            let titles = [try await f.addTitle("Momo"), try await f.addTitle("Holes"), try await f.addTitle("Matilda")]
            // Three loans (one back late: a fine), a hold, a read with a review.
            var barcodes: [String] = []
            for title in titles {
                let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": "ZQ-77", "titleId": title])
                #expect(loan.status == .created)
                barcodes.append(loan.string("copyBarcode"))
            }
            _ = try await owner.post("\(f.lib)/checkouts", ["cardId": "OT-1", "titleId": try await f.addTitle("Busy Book")])
            clock.advance(days: 30)
            for barcode in barcodes.prefix(2) { #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": barcode]).status == .ok) }
            #expect(try await owner.post("\(f.lib)/holds", ["cardId": "ZQ-77", "titleId": titles[1]]).status == .created)
            #expect(try await owner.post("\(f.lib)/reads", ["titleId": titles[0], "memberId": id, "status": "finished",
                                                            "review": "Zebedee's favourite"]).status == .created)

            let data = try await owner.get("\(f.lib)/members/\(id)/data.json")
            #expect(data.status == .ok, "\(String(buffer: data.body).prefix(300))")
            #expect((data["member"] as? [String: Any])?["notes"] as? String == "Likes dragons")
            let loans = try #require(data["loans"] as? [[String: Any]])
            #expect(loans.compactMap { $0["title"] as? String }.sorted() == ["Holes", "Matilda", "Momo"], "every loan")
            #expect(loans.filter { $0["returnedAt"] == nil }.count == 1)
            #expect((data["holds"] as? [[String: Any]])?.first?["title"] as? String == "Holes")
            #expect(((data["fines"] as? [[String: Any]]) ?? []).count == 2, "a charge for each late book")
            #expect((data["reading"] as? [[String: Any]])?.first?["review"] as? String == "Zebedee's favourite")
            let pdf = try await owner.get("\(f.lib)/members/\(id)/data.pdf")
            #expect(pdf.status == .ok && pdf.headers.contentType?.subType == "pdf" && String(buffer: pdf.body).hasPrefix("%PDF"))

            // Refused while a book is out, then while money is owed; both said.
            let out = try await owner.post("\(f.lib)/members/\(id)/erase", ["reason": "Parent's request"])
            #expect(out.status == .conflict && out.errorCode == "member_has_loans", "\(out.json)")
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": barcodes[2]]).status == .ok)
            let owes = try await owner.post("\(f.lib)/members/\(id)/erase", ["reason": "Parent's request"])
            #expect(owes.status == .conflict && owes.errorCode == "fines_owed", "\(owes.json)")
            let balance = try #require(try await owner.get("\(f.lib)/members/\(id)/fines")["balance"] as? Int)
            #expect(try await owner.post("\(f.lib)/members/\(id)/fines/payments", ["amount": balance]).status == .ok)
            let noReason = try await owner.post("\(f.lib)/members/\(id)/erase", [:])
            #expect(noReason.status == .unprocessableEntity || noReason.status == .badRequest, "a reason is asked for: \(noReason.json)")
            #expect(noReason.errorField == "reason")

            // A rollover's backup holds everyone: the erasure empties it.
            let rollover = try await owner.post("\(f.lib)/rollover", ["classes": [["from": "4B", "to": "5B"]]])
            #expect(rollover.status == .created)
            let circulation = try await owner.get("\(f.lib)/reports/circulation?period=this-year")
            let readers = try await owner.get("\(f.lib)/reports/readers?period=this-year")
            #expect(try await owner.post("\(f.lib)/members/\(id)/erase", ["reason": "Parent's request"]).status == .noContent)

            // Nothing of the member is left in any text of the database, nor in the next backup.
            let sql = app.db as! any SQLDatabase
            let marks = ["Zebedee", "Quillfeather", "ZQ-77", "zebedee@home.example", "Likes dragons"]
            struct Column: Decodable { var table_name: String; var column_name: String }
            let columns: [Column]
            if sql.dialect.name == "sqlite" {
                struct Table: Decodable { var name: String }
                var found: [Column] = []
                for table in try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table'").all(decoding: Table.self) {
                    struct Info: Decodable { var name: String; var type: String }
                    for info in try await sql.raw("SELECT name, type FROM pragma_table_info(\(bind: table.name))").all(decoding: Info.self)
                    where ["TEXT", ""].contains(info.type.uppercased()) || info.type.uppercased().contains("CHAR") {
                        found.append(Column(table_name: table.name, column_name: info.name))
                    }
                }
                columns = found
            } else {
                columns = try await sql.raw("""
                    SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type IN ('text', 'character varying')
                    """).all(decoding: Column.self)
            }
            #expect(columns.count > 50)
            for column in columns {
                for mark in marks {
                    struct N: Decodable { var n: Int }
                    let n = try await sql.raw("""
                        SELECT COUNT(*) AS n FROM \(ident: column.table_name) WHERE \(ident: column.column_name) LIKE \(bind: "%" + mark + "%")
                        """).first(decoding: N.self)?.n ?? 0
                    #expect(n == 0, "“\(mark)” is still in \(column.table_name).\(column.column_name)")
                }
            }
            let backup = String(buffer: try await owner.get("\(f.lib)/backup").body)
            for mark in marks { #expect(!backup.contains(mark), "the next backup holds “\(mark)”") }
            let gone = try await owner.get("\(f.lib)/rollovers/\(rollover.string("id"))/backup")
            #expect(gone.status == .gone && gone.errorCode == "backup_erased")
            // Every report's totals as they were: counted, not named.
            let circulationAfter = try await owner.get("\(f.lib)/reports/circulation?period=this-year")
            #expect(NSDictionary(dictionary: circulationAfter.json).isEqual(to: circulation.json), "circulation changed")
            let readersAfter = try await owner.get("\(f.lib)/reports/readers?period=this-year")
            func total(_ report: Client.Reply, _ key: String) -> String {
                let table = (report["tables"] as? [[String: Any]] ?? []).first { $0["key"] as? String == key }
                return "\(table?["totals"] ?? "none")"
            }
            #expect(total(readersAfter, "byClass") == total(readers, "byClass") && total(readersAfter, "byMember") == total(readers, "byMember"))
            // The audit log says it was done, and why, without naming them.
            let audit = try await owner.get("\(f.lib)/audit?action=member_erased").array
            #expect(audit.count == 1 && (audit.first?["detail"] as? [String: String])?["reason"] == "Parent's request")
            #expect(try await owner.get("\(f.lib)/audit?action=member_exported").array.count == 2)
        }
    }
}

/// Retention: a library that keeps who borrowed what for 24 months has its older loans forget their
/// borrower each night, and every report of then counts as it did.
@Suite struct RetentionTests {
    @Test func oldLoansForgetTheirBorrowerAndTheCountsStayEqual() async throws {
        let june2025 = Date(timeIntervalSince1970: 1_750_000_000)
        let clock = TestClock(june2025)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let ada = try await owner.post("\(f.lib)/members", ["cardId": "RT-1", "firstName": "Adelheid", "lastName": "Rosenkranz", "grade": "3A"])
            #expect(try await owner.post("\(f.lib)/members", ["cardId": "RT-2", "firstName": "Bartholomew", "grade": "3B"]).status == .created)
            for (card, title) in [("RT-1", "Momo"), ("RT-1", "Holes"), ("RT-2", "Matilda")] {
                let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": try await f.addTitle(title)])
                #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")]).status == .ok)
            }
            #expect(try await owner.post("\(f.lib)/reads", ["titleId": try await f.addTitle("Diary"), "memberId": ada.string("id"),
                                                            "status": "finished"]).status == .created)
            clock.advance(days: 1)
            #expect(try await owner.post("\(f.lib)/members/\(ada.string("id"))/archive").status == .ok)

            // Bounded: 6 to 120 months, 0 for ever.
            let tooShort = try await owner.patch(f.lib, ["retentionMonths": 3])
            #expect(tooShort.status == .unprocessableEntity && tooShort.errorField == "retentionMonths", "\(tooShort.json)")
            let set = try await owner.patch(f.lib, ["retentionMonths": 24])
            #expect(set.status == .ok && set["retentionMonths"] as? Int == 24, "\(set.json)")

            clock.advance(days: 25 * 31)
            let period = "from=2025-06-01&to=2025-06-30"
            let circulation = try await owner.get("\(f.lib)/reports/circulation?\(period)")
            let readers = try await owner.get("\(f.lib)/reports/readers?\(period)")
            #expect(circulation.status == .ok && readers.status == .ok, "\(circulation.json)")

            let libraryID = try #require(UUID(uuidString: f.libraryID))
            let outcome = try await Retention.run(library: libraryID, app: app)
            #expect(outcome.removed == 4, "three loans and one read")
            let sql = app.db as! any SQLDatabase
            struct N: Decodable { var n: Int }
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM loans WHERE member_name <> '' OR member_id IS NOT NULL").first(decoding: N.self)?.n == 0)
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM loans WHERE member_card_id LIKE 'RT-%'").first(decoding: N.self)?.n == 0)
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM borrower_months WHERE card LIKE 'RT-%'").first(decoding: N.self)?.n == 0)
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM activities WHERE info LIKE '%Adelheid%'").first(decoding: N.self)?.n == 0)
            #expect(try await sql.raw("SELECT COUNT(*) AS n FROM reads").first(decoding: N.self)?.n == 0, "the archived member's reading log")
            // The same card gets the same key: two borrowers stay two.
            #expect(try await sql.raw("SELECT COUNT(DISTINCT member_card_id) AS n FROM loans").first(decoding: N.self)?.n == 2)

            let circulationAfter = try await owner.get("\(f.lib)/reports/circulation?\(period)")
            #expect(NSDictionary(dictionary: circulationAfter.json).isEqual(to: circulation.json), "the circulation report changed")
            let readersAfter = try await owner.get("\(f.lib)/reports/readers?\(period)")
            // Each table's loans add up as before (the members' rows are one of former members now).
            func sums(_ report: Client.Reply) -> [String: Double] {
                var out: [String: Double] = [:]
                for table in report["tables"] as? [[String: Any]] ?? [] {
                    let rows = table["rows"] as? [[[String: Any]]] ?? []
                    out[table["key"] as? String ?? ""] = rows.reduce(0) { $0 + $1.dropFirst().compactMap { $0["number"] as? Double }.reduce(0, +) }
                }
                return out
            }
            #expect(sums(readersAfter) == sums(readers) && sums(readers)["byMember"] == 3, "\(sums(readers)) \(sums(readersAfter))")
            // Run again: nothing more to forget.
            #expect(try await Retention.run(library: libraryID, app: app).removed == 0)
            let audit = try await owner.get("\(f.lib)/audit?action=retention").array
            #expect(audit.count == 2 && audit.contains { ($0["detail"] as? [String: String])?["loans"] == "3" })
            // Off again: the nightly run has nothing to do.
            #expect(try await owner.patch(f.lib, ["retentionMonths": 0])["retentionMonths"] == nil)
        }
    }
}

/// The nightly drop folder: the school's file is read once and applied; a file that would archive
/// most of the school waits as a preview instead.
@Suite struct RosterFolderTests {
    @Test func theNightlyFileIsAppliedOnceAndAMostlyEmptyOneWaits() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-roster-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: root) }
            let folder = RosterFolder.folder(library: library, root: root)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(try await RosterFolder.run(library: library, root: root, app: app) == .nothingNew, "an empty folder")

            // Asked for in the settings: the nightly job is planned.
            let set = try await f.owner.patch(f.lib, ["rosterNightly": true])
            #expect(set.status == .ok && set["rosterNightly"] as? Bool == true)
            let zone = try #require(try await RecurringJobs.library(library, on: app.db))
            #expect(RecurringJobs.planned(library: zone, now: Date()).contains { $0.kind == .rosterFolder })

            let twelve = (1...12).map { "P\($0),Pupil\($0),Class 5\n" }.joined()
            try Data(("Student number,First name,Class\n" + twelve).utf8).write(to: URL(fileURLWithPath: folder + "/pupils.csv"))
            guard case .applied(_, 12, 0, 0) = try await RosterFolder.run(library: library, root: root, app: app) else {
                Issue.record("the night's file was not applied")
                return
            }
            #expect(try await f.owner.get("\(f.lib)/members").array.count == 12)
            #expect(try await RosterFolder.run(library: library, root: root, app: app) == .nothingNew, "the same file is read once")

            // A file that names two of the twelve: ten would leave, more than a fifth: held back.
            try Data("Student number,First name,Class\nP1,Pupil1,Class 5\nP2,Pupil2,Class 5\n".utf8)
                .write(to: URL(fileURLWithPath: folder + "/pupils.csv"))
            guard case .heldBack(let run, let leaving, let known) = try await RosterFolder.run(library: library, root: root, app: app) else {
                Issue.record("a file archiving most of the school was applied")
                return
            }
            #expect(leaving == 10 && known == 12)
            #expect(try await f.owner.get("\(f.lib)/members").array.count == 12, "nobody archived")
            let waiting = try await f.owner.get("\(f.lib)/roster/runs/\(run.uuidString)")
            #expect(waiting["source"] as? String == "folder" && waiting["appliedAt"] == nil && waiting["createdBy"] as? String == "Shelfmark")
            let audit = try await f.owner.get("\(f.lib)/audit?action=roster_applied").array
            #expect(audit.count == 1 && audit.first?["actor"] as? String == "Shelfmark")
        }
    }
}
