import Vapor

func routes(_ app: Application) throws {
    let api = APIRoutes(builder: app.routes.grouped(APIGuardMiddleware()).grouped("api", "v1"), prefix: ["api", "v1"], registry: app.openAPI)
    SystemController.register(api)
    AuthController.register(api)
    ServerController.register(api)
    LibrariesController.register(api)
    TitlesController.register(api)
    CirculationController.register(api)
    ReadingController.register(api)
    LookupController.register(api)
    ScanController.register(api)
    ExchangeController.register(api)
    JobsController.register(api)
    // The web app: server-rendered pages, CSRF-checked forms, errors as pages in the user's language.
    let web = app.routes.grouped(WebMiddleware())
    SessionPages.register(web)
    CatalogPages.register(web)
    CatalogPages.registerAdd(web)
    CirculationPages.register(web)
    WishlistPages.register(web)
    ReadingPages.register(web)
    PhotoPages.register(web)
    MorePages.register(web)
    EditPages.register(web)
    ExchangePages.register(web)
}
