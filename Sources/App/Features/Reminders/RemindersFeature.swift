import Vapor

/// Reminders by mail: the library's mail server, its edited templates, and the delivery log.
enum RemindersFeature: Feature {
    static let name = "Reminders"
    static let tables: [DataTable] = [
        DataTable(name: "mail_servers", rows: .byLibrary(), backup: .no("a password for a server of this school: never in a file that travels"),
                  erase: .no("a setting of the library, not its data"), swap: .no("the library keeps its own mail server"), forget: .cascade),
        DataTable(name: "mail_templates", rows: .byLibrary(), row: .of(MailTemplateRow.self), backup: .kept(key: "mailTemplates"),
                  erase: .no("a setting of the library, not its data"), swap: .moved, forget: .cascade),
        DataTable(name: "mail_messages", rows: .byLibrary(), parents: ["members"],
                  backup: .no("the delivery log names members and their addresses: it is not carried elsewhere"), erase: .erased,
                  swap: .no("not in a backup"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        MailController.register(api)
        ReminderPages.register(web)
    }

    static func backgroundLoops() -> [BackgroundLoop] { [MailWorker.loop()] }

    static var migrations: [Landed] {
        [
            Landed(40, CreateReminders()),
        ]
    }
}
