import Foundation
import Plot

/// Lending without a network: the page keeps the library on the phone (the sync feed in
/// IndexedDB, `Public/js/offline.js`), finds books as one types, lends and returns with no connection,
/// queues the changes and sends them when the network is back; a change the server refused is shown
/// with what happened. The service worker keeps the page, so it opens offline once opened online.
/// Without JavaScript its forms are the ordinary Lend and Return forms.
struct OfflineLendingPage: Sendable {
    var libraryID: UUID
    var userID: UUID

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        // The page script's words, in the reader's language ({count}, {title} … filled in there).
        let texts: [String: String] = [
            "upToDate": t(.offlineUpToDate), "waiting": t(.offlineWaiting), "sending": t(.offlineSending), "copying": t(.offlineCopying),
            "lent": t(.offlineLent), "returned": t(.offlineReturned), "noCard": t(.offlineNoCard), "noCopy": t(.offlineNoCopy),
            "alreadyOut": t(.offlineAlreadyOut), "notOut": t(.offlineNotOut), "conflictHelp": t(.offlineConflictHelp),
            "dismiss": t(.offlineDismiss), "onShelf": t(.offlineOnShelf), "renewed": t(.offlineRenewed), "renew": t(.renew),
            "dueOn": t(.dueOn), "onLoanNow": t(.currentLoans),
        ]
        let json = (try? JSONEncoder().encode(texts)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return Layout.page(page, title: t(.offlineLendingTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.offlineLendingTitle)) }
            H.el(.div, [.class: "offline-desk", .dataOffline: "/api/v1/libraries/" + lib.uuidString, .dataTexts: json, .dataUser: userID.uuidString]) {
                H.el(.p, [.class: "hint"]) { EscapedText(t(.offlineLendingIntro)) }
                H.el(.p, [.id: "offline-status", .class: "offline-status", .ariaLive: "polite"]) {}
                H.el(.section, [.class: "card", .id: "offline-attention", .hidden: ""]) {
                    H.el(.h2, [:]) { EscapedText(t(.offlineAttention)) }
                    H.el(.ul, [.class: "offline-list", .id: "offline-conflicts"]) {}
                }
                H.form(WebRoute.checkout(library: lib).path, csrf: page.csrf, attrs: [.class: "card", .id: "offline-lend"]) {
                    H.el(.h2, [:]) { EscapedText(t(.navCheckout)) }
                    H.field(t(.memberCard), name: "card", required: true, extra: [.autocomplete: "off", .autocapitalize: "characters", .autofocus: ""])
                    H.field(t(.bookField), name: "book", hint: t(.copyBarcodeHint), required: true, extra: [.autocomplete: "off"])
                    H.el(.p, [.class: "offline-answer", .id: "offline-lend-answer", .ariaLive: "polite"]) {}
                    H.button(t(.checkOut))
                    // The member's books on loan (from the phone's copy), each with Renew.
                    H.el(.div, [.id: "offline-member-loans", .hidden: ""]) {}
                }
                H.el(.form, [.method: "get", .action: WebRoute.returnBook(library: lib).path, .class: "card", .id: "offline-return"]) {
                    H.el(.h2, [:]) { EscapedText(t(.returnBook)) }
                    H.field(t(.copyBarcode), name: "barcode", required: true, extra: [.autocomplete: "off"])
                    H.el(.p, [.class: "offline-answer", .id: "offline-return-answer", .ariaLive: "polite"]) {}
                    H.button(t(.returnBook))
                }
                H.el(.section, [.class: "card"]) {
                    H.field(t(.offlineFindBook), name: "find", type: "search", extra: [.autocomplete: "off"])
                    H.el(.ul, [.class: "offline-list", .id: "offline-results"]) {}
                }
                H.el(.section, [.class: "card", .id: "offline-queue-box", .hidden: ""]) {
                    H.el(.h2, [:]) { EscapedText(t(.offlineWaitingList)) }
                    H.el(.ul, [.class: "offline-list", .id: "offline-queue"]) {}
                }
                H.el(.p, [.class: "actions"]) {
                    H.el(.button, [.type: "button", .class: "button", .id: "offline-sync", .hidden: ""]) { EscapedText(t(.offlineSyncNow)) }
                }
            }
        }
    }
}
