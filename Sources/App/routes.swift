import Vapor

func routes(_ app: Application) throws {
    let api = APIRoutes(builder: app.routes.grouped(APIGuardMiddleware()).grouped("api", "v1"), prefix: ["api", "v1"], registry: app.openAPI)
    SystemController.register(api)
    // The installable app: manifest, icons, service worker; Shelfmark's certificate authority.
    AppShell.register(app)
    // `/metrics` for Prometheus, when switched on.
    ServerMetrics.register(app)
    // The web app: server-rendered pages, CSRF-checked forms, errors as pages in the user's language.
    let web = app.routes.grouped(WebMiddleware())
    for feature in Features.all { feature.register(api: api, web: web) }
}
