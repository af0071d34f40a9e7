import Vapor

func routes(_ app: Application) throws {
    let api = APIRoutes(builder: app.routes.grouped("api", "v1"), prefix: ["api", "v1"], registry: app.openAPI)
    SystemController.register(api)
    AuthController.register(api)
    LibrariesController.register(api)
    TitlesController.register(api)
    CirculationController.register(api)
    LookupController.register(api)
    ScanController.register(api)
    app.get { req in req.redirect(to: "/api/v1/openapi.json") }
}
