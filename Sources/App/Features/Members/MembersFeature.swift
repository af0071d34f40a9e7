import Vapor

/// The library's members (students, readers) and their calendar feeds.
enum MembersFeature: Feature {
    static let name = "Members"
    static let tables: [DataTable] = [
        DataTable(name: "members", rows: .byLibrary(), row: .of(MemberRow.self),
                  notInRow: [
                      "pin_hash": "a short PIN's hash is guessed offline, so it never travels in a file: members choose a new PIN after a restore",
                  ], backup: .kept(key: "members"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "calendar_feeds", rows: .byLibrary(), parents: ["members"], backup: .no("a feed is a secret link of this server"),
                  erase: .no("a member's go with the member (foreign key); the staff's stay with the library"),
                  swap: .no("links of this server are not in a backup"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        MembersController.register(api)
        CalendarController.register(api)
        MemberPages.register(web)
        MemberEditPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(9, CreateMember()),
            Landed(19, AddClassToMemberSearch()),
            Landed(38, CreateCalendarFeeds()),
            Landed(78, MemberSearchWords()),
        ]
    }
}
