import Vapor

/// The school year: students from the school's records (the roster sync, with a preview, leavers
/// archived), and the audit log of what staff did to people and to the whole library.
enum SchoolYearFeature: Feature {
    static let name = "SchoolYear"
    static let tables: [DataTable] = [
        DataTable(name: "roster_runs", rows: .byLibrary(), backup: .no("the school's file of the day: the members it made are in the backup"),
                  erase: .erased, swap: .no("runs read against the library before the restore; a restored library reads its roster again"),
                  forget: .cascade),
        DataTable(name: "audit_log", rows: .byLibrary(), row: .of(AuditRow.self), backup: .kept(key: "auditLog"),
                  erase: .no("append-only: who did what outlives an erase (which adds its own entry)"),
                  swap: .no("append-only: the library keeps its own log through a restore (which adds its own entry)"),
                  forget: .cascade),
        DataTable(name: "rollovers", rows: .byLibrary(), backup: .no("it holds a backup of the library itself, and undoes what happened in this library"),
                  erase: .erased, swap: .no("the members it moved are the restored library's no more"), forget: .cascade),
        DataTable(name: "class_teachers", rows: .byLibrary(), keyedByID: false, backup: .no("staff accounts are not in a backup; the next roster names the classes again"),
                  erase: .erased, swap: .no("who teaches which class is the library's staff's, not the restored data's"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        RosterController.register(api)
        RosterPages.register(web)
    }

    static var migrations: [Landed] {
        [Landed(57, CreateSchoolYear()), Landed(58, CreateRollovers()), Landed(59, AddRetention()), Landed(60, AddRosterFolder()),
         Landed(62, AddClassTeachers()),
         Landed(63, ArchivedMembersLeaveTheFeed())]
    }

    static var settings: (any LibrarySettings.Type)? { SchoolYearSettings.self }
}
