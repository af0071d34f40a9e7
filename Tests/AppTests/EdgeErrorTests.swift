@testable import App
import Foundation
import Testing
import Vapor

/// Refusals at the HTTP edge (no sign-in, a confirmation not given, a body that is not a photo, a link
/// that leads nowhere) are said in the request's language, with the status and code programs read.
@Suite struct EdgeErrorTests {
    @Test func theEdgesRefusalsAreSaidInTheRequestsLanguage() async throws {
        try await withTestApp { app in
            // setup: a library with a title without an ISBN
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Ohne Nummer")
            let german: HTTPHeaders = ["Accept-Language": "de"]
            let de = Strings(lang: app.languages.first { $0.rawValue == "de" }!)
            let en = Strings(lang: .en)
            let anonymous = Client(app: app, token: nil)
            struct Case { let reply: Client.Reply; let status: HTTPStatus; let code: String; let message: (Strings) -> String }
            func raw(_ method: HTTPMethod, _ path: String, _ contentType: String, _ body: Data) async throws -> Client.Reply {
                var headers = german
                headers.bearerAuthorization = .init(token: f.owner.token!)
                headers.replaceOrAdd(name: .contentType, value: contentType)
                let response = try await app.testing().sendRequest(method, path, headers: headers, body: ByteBuffer(data: body))
                return Client.Reply(status: response.status, body: response.body, headers: response.headers)
            }
            // MUT: each refusal asked for in German
            let cases: [Case] = [
                Case(reply: try await anonymous.send(.GET, f.lib, headers: german), status: .unauthorized, code: "unauthenticated") { $0(.errSignInFirst) },
                Case(reply: try await f.owner.send(.DELETE, f.lib, headers: german), status: .conflict, code: "confirm_required") {
                    $0.format(.errConfirmDeleteLibrary, "Room 12") },
                Case(reply: try await f.owner.send(.POST, "\(f.lib)/erase", headers: german), status: .conflict, code: "confirmation_required") {
                    $0.format(.errConfirmErase, "Room 12") },
                Case(reply: try await f.owner.send(.POST, "\(f.lib)/restore?confirm=true", headers: german), status: .unprocessableEntity, code: "invalid") {
                    $0(.errBackupBodyMissing) },
                Case(reply: try await f.owner.send(.GET, "\(f.lib)/shelves/qr.svg", headers: german), status: .unprocessableEntity, code: "invalid") {
                    $0(.errShelfNeeded) },
                Case(reply: try await f.owner.send(.GET, "\(f.lib)/shelves/qr.svg?location=\(String(repeating: "A", count: 151))", headers: german),
                     status: .unprocessableEntity, code: "invalid") { $0.format(.errTooLong, $0.label("location"), $0.number(150)) },
                Case(reply: try await f.owner.send(.GET, "\(f.lib)/titles/\(titleID)/barcode.svg", headers: german), status: .notFound, code: "no_isbn") {
                    $0.format(.errNoISBNToDraw, "Ohne Nummer") },
                Case(reply: try await f.owner.send(.GET, "/api/v1/public/calendar/\(String(repeating: "x", count: 43)).ics", headers: german),
                     status: .notFound, code: "not_found") { $0(.errCalendarGone) },
                Case(reply: try await raw(.POST, "/api/v1/scan", "image/jpeg", Data("not a photo".utf8)), status: .unsupportedMediaType, code: "bad_image") {
                    $0(.errImageNotImage) },
                Case(reply: try await raw(.POST, "/api/v1/scan", "multipart/form-data", Data("x".utf8)), status: .badRequest, code: "bad_body") {
                    $0(.errFormNoBoundary) },
                Case(reply: try await raw(.POST, "/api/v1/scan", "image/jpeg", Data(repeating: 0xFF, count: 11 << 20)), status: .payloadTooLarge,
                     code: "too_large") { $0.format(.errImageTooLarge, $0.number(ScanController.maxImageMB)) },
            ]
            // validate: the status and code programs read, the German sentence, and English for English
            for (i, c) in cases.enumerated() {
                #expect(c.reply.status == c.status, "case \(i): \(c.reply.status) \(String(buffer: c.reply.body).prefix(200))")
                #expect(c.reply.errorCode == c.code, "case \(i)")
                #expect(c.reply.errorMessage == c.message(de), "case \(i): \(c.reply.errorMessage ?? "-")")
                #expect(c.message(de) != c.message(en), "case \(i): the German text is the English one")
                #expect(c.reply.headers.first(name: .contentLanguage) == "de", "case \(i)")
            }
            // A body over its route's bound, refused by Vapor before any route: the same words.
            #expect(de.message(Abort(.payloadTooLarge)) == de.format(.errUploadTooLarge, de.number(ScanController.maxImageMB)))
            let english = try await anonymous.get(f.lib)
            #expect(english.errorMessage == en(.errSignInFirst))
        }
    }
}
