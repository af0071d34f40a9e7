import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// The reading card on a book's page: the reader's status in one tap, the progress bar,
/// and the page — typed on a number pad or said into the microphone.
struct ReadingCard: Sendable {
    var libraryID: UUID
    var titleID: UUID
    /// The reader's newest read of this title, if any.
    var read: ReadDTO?
    /// How many times the reader has finished it.
    var finishedCount: Int

    static func make(titleID: UUID, library: LibraryContext, on db: any Database) async throws -> ReadingCard {
        let reads = try await ReadingLog.list(reader: .user(library.user.id), status: nil, titleID: titleID, libraryID: library.libraryID,
                                              limit: 100, offset: 0, on: db)
        return ReadingCard(libraryID: library.libraryID, titleID: titleID, read: reads.first,
                           finishedCount: reads.filter { $0.status == ReadStatus.finished.rawValue }.count)
    }

    static func statusName(_ status: ReadStatus, t: Strings) -> String {
        switch status {
        case .wantToRead: t(.readWant)
        case .reading: t(.readReading)
        case .finished: t(.readFinished)
        case .didNotFinish: t(.readDNF)
        }
    }

    /// "Page 157 of 320 · 49 %", "Page ix", "40 %", or "" before any progress.
    static func positionText(_ read: ReadDTO, t: Strings) -> String {
        let page = read.pageLabel ?? read.page.map { t.number($0) }
        switch (page, read.pageCount, read.percent) {
        case (let p?, let total?, let percent?): return t.format(.pageOfPercent, p, t.number(total), t.number(percent))
        case (let p?, _, _): return t.format(.pageOnly, p)
        case (nil, _, let percent?): return t.format(.percentOnly, t.number(percent))
        default: return ""
        }
    }

    static func progressBar(_ read: ReadDTO, t: Strings) -> any Component {
        let text = positionText(read, t: t)
        return H.el(.div, [.class: "progress-line"]) {
            if let percent = read.percent {
                H.el(.progress, [.max: "100", .value: String(percent), .ariaLabel: text]) { EscapedText(t.format(.percentOnly, t.number(percent))) }
            }
            if !text.isEmpty { H.el(.span, [.class: "where"]) { EscapedText(text) } }
        }
    }

    /// The page field with its microphone: one form, shared by the book page and the Reading list.
    /// Offline, a page or percentage typed here is kept on the phone and sent later (`Public/js/reading-offline.js`).
    static func pageForm(titleID: UUID, lib: UUID, csrf: String, t: Strings, back: String?, id: String, compact: Bool) -> any Component {
        let texts = ["kept": t(.readingOfflineKept), "unreadable": t(.readingOfflineUnreadable), "sent": t(.readingOfflineSent)]
        let json = (try? JSONEncoder().encode(texts)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return H.form(WebRoute.titleProgress(library: lib, title: titleID).path, csrf: csrf,
                      attrs: [.class: compact ? "page-form compact" : "page-form", .dataTexts: json]) {
            if let back { H.void(.input, [.type: "hidden", .name: "back", .value: back]) }
            H.void(.input, [.type: "hidden", .name: "phrase", .id: id + "-phrase", .disabled: ""])
            H.el(.div, [.class: "field"]) {
                H.el(.label, [.for: id]) { EscapedText(t(.pageField)) }
                H.el(.div, [.class: "with-button"]) {
                    H.void(.input, [.type: "text", .id: id, .name: "page", .inputmode: "numeric", .autocomplete: "off",
                                    .maxlength: "40", .placeholder: "157", .ariaDescribedby: compact ? nil : id + "-hint"])
                    H.el(.button, [.type: "button", .class: "button quiet mic", .dataVoice: id, .dataVoiceLang: t.lang.speechTag,
                                   .dataListening: t(.listening), .ariaLabel: t(.speakPage), .hidden: ""]) {
                        H.el(.svg, [.viewBox: "0 0 24 24", .fill: "currentColor", .focusable: "false", .ariaHidden: "true"]) {
                            H.void(.path, [.d: "M12 15a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v7a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.9V22h2v-3.1A7 7 0 0 0 19 12z"])
                        }
                    }
                    H.button(t(.saveProgress))
                }
                if !compact { H.el(.p, [.class: "hint", .id: id + "-hint"]) { EscapedText(t(.pageFieldHint)) } }
            }
        }
    }

    func render(_ page: PageContext) -> any Component {
        let t = page.t
        let (lib, titleID, read) = (libraryID, titleID, read)
        let status = read.map { ReadStatus(rawValue: $0.status) ?? .wantToRead }
        return H.el(.section, [.class: "reading-card", .id: "reading"]) {
            H.el(.h2, [:]) { EscapedText(t(.yourReading)) }
            if let read {
                Self.progressBar(read, t: t)
                if let started = read.startedAt, status != .wantToRead {
                    H.el(.p, [.class: "meta"]) {
                        EscapedText(t.format(.startedOn, t.date(started)) + (read.finishedAt.map { " · " + t.format(.finishedOn, t.date($0)) } ?? ""))
                    }
                }
            }
            if finishedCount > 1 { H.el(.p, [.class: "meta"]) { EscapedText(t(.readTimes, finishedCount)) } }
            H.form(WebRoute.titleReadStatus(library: lib, title: titleID).path, csrf: page.csrf, attrs: [.class: "status-chips"]) {
                for option in ReadStatus.allCases {
                    H.el(.button, [.type: "submit", .name: "status", .value: option.rawValue,
                                   .class: option == status ? "chip current" : "chip", .ariaPressed: option == status ? "true" : "false"]) {
                        EscapedText(Self.statusName(option, t: t))
                    }
                }
            }
            Self.pageForm(titleID: titleID, lib: lib, csrf: page.csrf, t: t, back: nil, id: "f-progress", compact: false)
            if let read, status == .finished || status == .didNotFinish {
                H.form(WebRoute.readRating(library: lib, read: read.id).path, csrf: page.csrf, attrs: [.class: "read-rating"]) {
                    Components.stars(name: "read-rating", value: read.rating, label: t(.yourRating), error: nil, t: t)
                    H.button(t(.saveRating), kind: "secondary")
                }
            }
            H.el(.p, [:]) { H.link(t(.navReading) + " ›", WebRoute.reading(library: lib).path) }
        }
    }
}
