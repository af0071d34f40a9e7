import Foundation
@testable import ShelfmarkCore
import Testing

/// Rosters from a school's records: OneRoster 1.1 and 1.2 bundles and plain student lists, read
/// into students with the school's stable ids, their class and their guardian's e-mail; rows that
/// cannot be taken are named by file and line.
@Suite struct RosterReadingTests {
    static let manifest = "propertyName,value\nmanifest.version,1.0\noneroster.version,1.1\nfile.users,bulk\nfile.classes,bulk\nfile.enrollments,bulk\n"
    static let classes = """
        sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects
        c-3a,,,3A,03,k1,3A,homeroom,R1,s1,t1,
        c-mus,,,Music 3,03,k2,MU3,scheduled,R9,s1,t1,music
        c-4b,,,4B,04,k1,4B,homeroom,R2,s1,t1,

        """
    static let enrollments = """
        sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate
        e1,,,c-3a,s1,u-ada,student,,,
        e2,,,c-mus,s1,u-ada,student,,,
        e3,,,c-mus,s1,u-ben,student,,,
        e4,,,c-3a,s1,u-teach,teacher,true,,
        e5,,,c-4b,s1,u-cem,student,,,

        """
    static let users11 = """
        sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password
        u-ada,,,true,s1,student,ada,,Ada,Lovelace,,1001,ada@school.example,,,u-mum,03,
        u-ben,,,true,s1,student,ben,,Ben,Okafor,,1002,,,,,03,
        u-cem,,,false,s1,student,cem,,Cem,Yilmaz,,1003,,,,,04,
        u-mum,,,true,s1,guardian,mum,,Mary,Lovelace,,,mary@home.example,,,,,
        u-teach,,,true,s1,teacher,kt,,Kim,Teacher,,T1,kim@school.example,,,,,
        u-bad,,,true,s1,student,bad,,Dan,Bad,,1004,not-an-address,,,,03,
        ,,,true,s1,student,x,,No,Id,,1005,,,,,03,
        u-ada,,,true,s1,student,ada2,,Ada,Again,,1006,,,,,03,

        """

    @Test func aOneRoster11BundleGivesStudentsTheirHomeroomAndGuardian() throws {
        let roster = try OneRoster.read(["export/manifest.csv": Self.manifest, "export/users.csv": Self.users11, "export/classes.csv": Self.classes,
                                         "export/enrollments.csv": Self.enrollments, "export/orgs.csv": "sourcedId,name\ns1,School\n"])
        #expect(roster.format == "oneroster-1.1" && roster.mode == .full)
        #expect(roster.students.map(\.id) == ["u-ada", "u-ben"])
        let ada = try #require(roster.students.first)
        #expect(ada.number == "1001" && ada.firstName == "Ada" && ada.lastName == "Lovelace" && ada.email == "ada@school.example")
        #expect(ada.grade == "3A", "the homeroom wins over the music class")
        #expect(ada.guardianEmail == "mary@home.example")
        #expect(roster.students[1].grade == "Music 3", "a student in one class only takes that class")
        // A disabled account is a leaver; the teacher with their class; the rows not taken, by line.
        #expect(roster.leaving == ["u-cem"])
        #expect(roster.teachers.map(\.id) == ["u-teach"] && roster.teachers[0].classes == ["3A"])
        #expect(roster.problems.map(\.line) == [7, 8, 9])
        #expect(roster.problems.map(\.code) == ["invalid_email", "missing", "duplicate_id"])
        #expect(roster.problems.allSatisfy { $0.file == "users.csv" })
        #expect(roster.problems[0].values["column"] == "email" && roster.problems[0].id == "u-bad")
        #expect(roster.problems[2].values == ["id": "u-ada", "first": "2"])
        // Everyone the file names, taken or not, is not a leaver in a full sync.
        #expect(roster.namedIDs == ["u-ada", "u-ben", "u-bad", "u-cem"])
    }

    @Test func aOneRoster12BundleTakesRolesFromRolesCSVAndADeltaSaysWhoLeft() throws {
        let manifest = "propertyName,value\noneroster.version,1.2\nfile.users,delta\n"
        let users = """
            sourcedId,status,dateLastModified,enabledUser,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password,userMasterIdentifier,resourceSourcedIds,preferredGivenName,preferredMiddleName,preferredFamilyName,primaryOrgSourcedId,pronouns
            u1,active,2026-09-01,true,a,,Zoë,Ünal,,2001,,,,,05,,,,,,,s1,
            u2,tobedeleted,2026-09-01,true,b,,Old,Leaver,,2002,,,,,06,,,,,,,s1,
            u3,active,2026-09-01,true,c,,Pat,Staff,,,,,,,,,,,,,,s1,

            """
        let roles = """
            sourcedId,status,dateLastModified,userSourcedId,roleType,role,orgSourcedId,userProfileSourcedId
            r1,active,,u1,primary,student,s1,
            r2,active,,u2,primary,student,s1,
            r3,active,,u3,primary,administrator,s1,

            """
        let roster = try OneRoster.read(["manifest.csv": manifest, "users.csv": users, "roles.csv": roles])
        #expect(roster.format == "oneroster-1.2" && roster.mode == .delta)
        #expect(roster.students.map(\.firstName) == ["Zoë"] && roster.students[0].grade == "05" && roster.students[0].lastName == "Ünal")
        #expect(roster.leaving == ["u2"])
        #expect(roster.teachers.isEmpty, "an administrator is neither student nor teacher")
    }

    @Test func aBundleWithoutUsersOrWithAnUnknownVersionIsRefusedAsAWhole() {
        #expect(throws: RosterError.missingFile("users.csv")) { try OneRoster.read(["manifest.csv": Self.manifest]) }
        #expect(throws: RosterError.unsupportedVersion("2.0")) {
            try OneRoster.read(["manifest.csv": "propertyName,value\noneroster.version,2.0\n", "users.csv": Self.users11])
        }
        #expect(throws: RosterError.missingColumns(file: "users.csv", columns: ["familyName"])) {
            try OneRoster.read(["manifest.csv": Self.manifest, "users.csv": "sourcedId,givenName\nu1,Ada\n"])
        }
    }

    @Test func aStudentListFindsItsColumnsByNameOrAsNamed() throws {
        let text = "Schülernummer;Vorname;Nachname;Klasse;Eltern-E-Mail;Notiz\nA-1;Mia;Keller;5b;eltern@web.example;x\nA-2;;Roth;5b;;\nA 3;Tim;Roth;5c;;\n"
        let roster = try StudentList.read(text, mode: .delta)
        #expect(roster.format == "csv" && roster.mode == .delta)
        #expect(roster.students.map(\.id) == ["A-1", "A 3"])
        #expect(roster.students[0].guardianEmail == "eltern@web.example" && roster.students[0].grade == "5b")
        #expect(roster.students[1].number == nil, "a number with a space is no card")
        #expect(roster.problems.map(\.line) == [3] && roster.problems[0].code == "missing" && roster.problems[0].values["column"] == "Vorname")
        // Named columns where the headers are the school's own.
        let own = "Pupil Ref,Given,Family,Tutor Group\n77,Ana,Silva,7X\n"
        #expect(throws: RosterError.missingColumns(file: "students.csv", columns: ["Student number", "First name"])) {
            try StudentList.read(own, mode: .full)
        }
        let mapped = try StudentList.read(own, mode: .full, mapping: [.number: "Pupil Ref", .firstName: "Given", .lastName: "Family", .grade: "Tutor Group"])
        #expect(mapped.students == [.init(id: "77", number: "77", firstName: "Ana", lastName: "Silva", grade: "7X", email: nil, guardianEmail: nil,
                                          file: "students.csv", line: 2)])
        #expect(throws: RosterError.missingColumns(file: "students.csv", columns: ["Nope"])) {
            try StudentList.read(own, mode: .full, mapping: [.number: "Nope"])
        }
    }
}

@Suite struct ClassPromotionTests {
    @Test func eachClassMovesUpAYearAndTheTopYearLeaves() {
        let suggested = ClassPromotion.suggest(["3A", "3B", "4A", "Year 5", "Year 6", "Library helpers", "6B"])
        #expect(suggested["3A"] == .some("4A") && suggested["3B"] == .some("4B") && suggested["4A"] == .some("5A"))
        #expect(suggested["Year 5"] == .some("Year 6"))
        #expect(suggested["Year 6"] == .some(nil) && suggested["6B"] == .some(nil), "the highest year leaves")
        #expect(suggested["Library helpers"] == nil, "a class without a year stays as it is")
        #expect(ClassPromotion.suggest(["Klasse 9b", "Klasse 10a"]) == ["Klasse 9b": .some("Klasse 10b"), "Klasse 10a": nil] as [String: String?])
        #expect(ClassPromotion.suggest(["Blue", "Green"]).isEmpty)
    }
}
