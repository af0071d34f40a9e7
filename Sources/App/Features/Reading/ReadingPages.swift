import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Reading life on the web: the reading card on a book's page (status in one tap, the page
/// typed or said), the Reading list, the statistics with the year's goal, and a member's reading log
/// kept by staff.
enum ReadingPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.reading(library: .pattern), use: list)
        web.get(.readingStats(library: .pattern), use: stats)
        web.get(.readingClass(library: .pattern), use: classOverview)
        web.post(.readingShare(library: .pattern), use: share)
        web.get(.sharedYear(token: "pattern"), use: sharedYear)
        web.post(.readingGoal(library: .pattern), use: setGoal)
        web.post(.titleProgress(library: .pattern, title: .pattern), use: progress)
        web.post(.titleReadStatus(library: .pattern, title: .pattern), use: setStatus)
        web.post(.titleMemberRead(library: .pattern, title: .pattern), use: logForMember)
        web.post(.readDelete(library: .pattern, read: .pattern), use: deleteRead)
        web.post(.readRating(library: .pattern, read: .pattern), use: rateRead)
    }

    @Sendable static func list(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let show = req.query[String.self, at: "show"].flatMap(ReadStatus.init(rawValue:)) ?? .reading
        return try await ReadingPage.make(show: show, paging: Paging(req.query[Int.self, at: "page"]), library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func stats(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let thisYear = ctx.policy.calendar.component(.year, from: req.now)
        let year = min(max(req.query[Int.self, at: "year"] ?? thisYear, ReadingLog.goalYears.lowerBound), ReadingLog.goalYears.upperBound)
        // A member's log: the same figures, for staff who lend.
        var member: Member? = nil
        if let raw = req.query[String.self, at: "member"], let id = UUID(uuidString: raw) {
            member = try await ReadingController.member(req, ctx, id: id)
        }
        var model = try await ReadingStatsPage.make(year: year, thisYear: thisYear, member: member, library: ctx, scope: req.scope(ctx))
        model.origin = origin(req)
        // The link just made, carried once from the form to this page (signed for this session, like a flash).
        if let raw = req.cookies[newShareCookie]?.string, let token = Flash.message(in: raw, session: req.flashKey),
           model.sharedSince != nil, member == nil {
            model.newShareToken = token
        }
        let response = try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
        if req.cookies[newShareCookie] != nil { response.cookies[newShareCookie] = req.cookie("", maxAge: 0) }
        return response
    }

    static let newShareCookie = "shelfmark_new_share"

    /// This server's address as the browser reached it (for a link to copy): the Host header, only
    /// when it is a plain host name or address with a port.
    static func origin(_ req: Request) -> String {
        let host = req.headers.first(name: .host) ?? "127.0.0.1"
        guard host.count <= 255, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) }) else { return "" }
        return (req.isSecureTransport ? "https://" : "http://") + host
    }

    /// Share the year by a secret link, or stop sharing it (the link then leads nowhere).
    @Sendable static func share(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let form = try req.form(ShareForm.self)
        let year = form.year ?? ctx.policy.calendar.component(.year, from: req.now)
        let back = WebRoute.readingStats(library: ctx.libraryID).path(query: [("year", String(year))]) + "#share"
        var newToken: String?
        let response = try await req.seeOther(back) {
            if form.stop != nil {
                try await ReadingShares.stop(year: year, userID: ctx.user.id, in: req.scope(ctx))
                return req.t(.shareStopped)
            }
            newToken = try await ReadingShares.share(year: year, userID: ctx.user.id, in: req.scope(ctx))
            return req.t(.shareMade)
        }
        // The token is stored only as its hash: the next page shows the link, this once.
        if let newToken, let value = Flash.value(newToken, session: req.flashKey) {
            response.cookies[newShareCookie] = req.cookie(value, maxAge: 120)
        }
        return response
    }

    /// The shared year, for anyone with the link: no sign-in, not indexed, nothing private.
    @Sendable static func sharedYear(req: Request) async throws -> Response {
        guard let token = req.parameters.get("token"),
              let (name, stats) = try await ReadingShares.summary(token: token, app: req.application, now: req.now) else {
            throw ReadingError.shareNotFound
        }
        let response = try await SharedYearPage(name: name, stats: stats).render(try await req.page()).encodeResponse(for: req)
        response.headers.replaceOrAdd(name: "X-Robots-Tag", value: "noindex, nofollow")
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, no-store")
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    /// A class's reading this term: books each member finished since a day (default 1 September of
    /// the school year), from their reading logs. For staff who lend.
    @Sendable static func classOverview(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        let calendar = ctx.policy.calendar
        let now = req.now
        var since = ClassReadingPage.termStart(now: now, calendar: calendar)
        if let raw = req.query[String.self, at: "since"], let day = ImportedRead.day(raw) {
            since = calendar.startOfDay(for: day)
        }
        return try await ClassReadingPage.make(grade: req.query[String.self, at: "grade"].flatMap { $0.isEmpty ? nil : String($0.prefix(50)) },
                                               since: since, library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func setGoal(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let form = try req.form(GoalForm.self)
        let year = form.year ?? ctx.policy.calendar.component(.year, from: req.now)
        let memberID = form.member
        let reader = try await ReadingController.reader(req, ctx, memberID: memberID)
        let back = WebRoute.readingStats(library: ctx.libraryID).path(query: [("year", String(year)), ("member", memberID?.uuidString)])
        return try await req.seeOther(back) {
            _ = try await ReadingLog.setGoal(year: year, books: form.books, pages: form.pages,
                                             reader: reader, in: req.scope(ctx))
            return req.t(.goalSaved)
        }
    }

    /// Where a reading form goes back to: the Reading list, or the book (never a address from the form).
    static func back(_ req: Request, library: UUID, title: UUID) -> String {
        (try? req.form(BackForm.self))?.back == "reading" ? WebRoute.reading(library: library).path : WebRoute.title(library: library, title: title).path + "#reading"
    }

    /// The page field takes what a reader types or says: "157", "40 %", "+20", "page 157", or a label
    /// ("ix"); the microphone's transcript comes as `phrase`.
    @Sendable static func progress(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let titleID = try req.uuid("titleID")
        let t = req.t(ctx)
        return try await req.seeOther(back(req, library: ctx.libraryID, title: titleID)) {
            let form = try req.form(ProgressForm.self)
            var input = ProgressInput()
            let typed = form.page
            if let phrase = form.phrase {
                input.phrase = phrase
            } else if let typed {
                if let n = Int(typed) { input.page = n } else {
                    do throws(SpokenProgress.Problem) {
                        _ = try SpokenProgress.parse(String(typed.prefix(SpokenProgress.maxPhraseLength)), language: req.lang.spoken)
                        input.phrase = typed
                    } catch .noNumber where typed.count <= ProgressEntry.labelMaxLength {
                        input.label = typed
                    } catch {
                        input.phrase = typed
                    }
                }
            } else {
                throw ReadingError.noPageHeard(phrase: "")
            }
            let read = try await ReadingLog.progressOnTitle(titleID, input, reader: .user(ctx.user.id), language: req.lang.spoken, in: req.scope(ctx))
            if read.status == ReadStatus.finished.rawValue { return t.format(.finishedFlash, read.title) }
            return t.format(.progressSaved, ReadingCard.positionText(read, t: t))
        }
    }

    @Sendable static func setStatus(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let titleID = try req.uuid("titleID")
        let t = req.t(ctx)
        return try await req.seeOther(back(req, library: ctx.libraryID, title: titleID)) {
            let status = try ReadingLog.parseStatus(try req.form(StatusForm.self).status ?? "")
            let reader = Reader.user(ctx.user.id)
            let reads = try await ReadingLog.list(reader: reader, status: nil, titleID: titleID, libraryID: ctx.libraryID, limit: 1, offset: 0, on: req.db)
            let read: ReadDTO
            if let latest = reads.first, latest.status != ReadStatus.finished.rawValue || status == .finished || status == .didNotFinish {
                read = try await ReadingLog.update(latest.id, ReadPatch(status: status.rawValue), reader: reader, in: req.scope(ctx))
            } else {
                // Nothing yet, or a finished read: a new read (reading a finished book again is a re-read).
                read = try await ReadingLog.start(ReadInput(titleId: titleID, status: status.rawValue), reader: reader, in: req.scope(ctx))
            }
            return t.format(.statusSavedFlash, read.title, ReadingCard.statusName(status, t: t))
        }
    }

    /// Staff who lend keep a member's reading log from the book's page: card ID and what they did.
    @Sendable static func logForMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let titleID = try req.uuid("titleID")
        let t = req.t(ctx)
        // An unknown card is said on the book's page, as any other refusal.
        return try await req.seeOther(WebRoute.title(library: ctx.libraryID, title: titleID).path + "#member-reading",
                                      refusing: { $0 is any DomainError }) {
            let form = try req.form(MemberReadForm.self)
            let card = form.cardId
            guard let memberID = try await Lookup.member(card: card, library: ctx.libraryID, on: req.db) else {
                throw CirculationError.memberNotFound(card)
            }
            let member = try await Members.find(memberID, library: ctx.libraryID, on: req.db)
            let status = try ReadingLog.parseStatus(form.status ?? ReadStatus.finished.rawValue)
            _ = try await ReadingLog.start(ReadInput(titleId: titleID, status: status.rawValue), reader: .member(memberID), in: req.scope(ctx))
            return t.format(.loggedForMember, member.fullName, ReadingCard.statusName(status, t: t))
        }
    }

    /// The reader's stars for a read they finished (or gave up), from the book page's reading card.
    @Sendable static func rateRead(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let readID = try req.uuid("readID")
        let reader = Reader.user(ctx.user.id)
        let read = try await ReadingLog.find(readID, reader: reader, library: ctx.libraryID, on: req.db)
        let back = read.titleID.map { WebRoute.title(library: ctx.libraryID, title: $0).path + "#reading" } ?? WebRoute.reading(library: ctx.libraryID).path
        return try await req.seeOther(back) {
            let stars = try req.form(RatingForm.self).rating
            _ = try await ReadingLog.update(readID, ReadPatch(rating: stars), reader: reader, in: req.scope(ctx))
            return req.t(.ratingSaved)
        }
    }

    @Sendable static func deleteRead(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let readID = try req.uuid("readID")
        var reader = Reader.user(ctx.user.id)
        var back = WebRoute.reading(library: ctx.libraryID).path
        if let memberID = try? req.form(MemberChoice.self).member {
            reader = try await ReadingController.reader(req, ctx, memberID: memberID)
            back = WebRoute.member(library: ctx.libraryID, member: memberID).path + "#reading"
        }
        return try await req.seeOther(back) {
            try await ReadingLog.delete(readID, reader: reader, in: req.scope(ctx))
            return req.t(.readDeleted)
        }
    }
}

/// The reading pages' forms (one type per form, its fields and bounds in one place).
extension ReadingPages {
    struct ShareForm: WebForm {
        var year: Int?
        var stop: String?
    }

    struct GoalForm: WebForm {
        var year, books, pages: Int?
        var member: UUID?
    }

    /// What a reader typed or said; a phrase is bounded as the spoken-progress parser reads it.
    struct ProgressForm: WebForm {
        var page, phrase: String?
        static var maxLength: [String: Int] { ["page": SpokenProgress.maxPhraseLength, "phrase": SpokenProgress.maxPhraseLength] }
    }

    struct StatusForm: WebForm {
        var status: String?
        static var maxLength: [String: Int] { ["status": 32] }
    }

    /// Staff log a read for a member by card ID.
    struct MemberReadForm: WebForm {
        var cardId: String
        var status: String?
        static var maxLength: [String: Int] { ["cardId": 64, "status": 32] }
    }

    struct RatingForm: WebForm {
        var rating: Double
        enum CodingKeys: String, CodingKey { case rating = "read-rating" }
        static var maxLength: [String: Int] { ["read-rating": 8] }
    }

    struct MemberChoice: WebForm {
        var member: UUID?
    }
}
