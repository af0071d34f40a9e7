import Vapor

/// Sign-in with the school's accounts (OpenID Connect): staff by their account's school e-mail,
/// members in the public catalog by student number or e-mail; the administrator's settings.
enum SchoolSignInFeature: Feature {
    static let name = "SchoolSignIn"
    static let tables: [DataTable] = [
        // A member's sign-in names their library (a staff member's none); each ends within ten minutes.
        DataTable(name: "school_sign_ins", rows: .byLibrary(), backup: .no("sign-ins on their way through the provider, for ten minutes"),
                  erase: .erased, swap: .no("a sign-in on its way into the library as it was; it ends within ten minutes"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        SchoolSignInController.register(api)
        SchoolSignInPages.register(web)
    }

    static var migrations: [Landed] { [Landed(61, CreateSchoolSignIn())] }
}
