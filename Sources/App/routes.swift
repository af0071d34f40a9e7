import Vapor

func routes(_ app: Application) throws {
    let api = APIRoutes(builder: app.routes.grouped(APIGuardMiddleware()).grouped("api", "v1"), prefix: ["api", "v1"], registry: app.openAPI)
    SystemController.register(api)
    AuthController.register(api)
    ServerController.register(api)
    LibrariesController.register(api)
    TitlesController.register(api)
    CollectionsController.register(api)
    ShelvesController.register(api)
    ReadingController.register(api)
    LookupController.register(api)
    ScanController.register(api)
    ExchangeController.register(api)
    JobsController.register(api)
    // The installable app: manifest, icons, service worker; Shelfmark's certificate authority.
    AppShell.register(app)
    // The web app: server-rendered pages, CSRF-checked forms, errors as pages in the user's language.
    let web = app.routes.grouped(WebMiddleware())
    SessionPages.register(web)
    CatalogPages.register(web)
    CatalogPages.registerAdd(web)
    ShelfPages.register(web)
    WishlistPages.register(web)
    ReadingPages.register(web)
    PhotoPages.register(web)
    MorePages.register(web)
    EditPages.register(web)
    ExchangePages.register(web)
    // The features that live in their own folder register their API and pages themselves.
    for feature in Features.all { feature.register(api: api, web: web) }
}
