import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup

extension WishlistPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, q, candidates, items, canEdit, form, wishes) = (libraryID, q, candidates, items, canEdit, form, wishes)
        return Layout.page(page, title: t(.wishlist)) {
            H.el(.h1, [:]) { EscapedText(t(.wishlist)) }
            if published { H.el(.p, [:]) { H.link(t(.publicWishlistLink), WebRoute.publicWishlist(library: libraryID).path) } }
            if canEdit {
                H.el(.form, [.method: "get", .action: WebRoute.wishlist(library: lib).path, .role: "search", .class: "search"]) {
                    H.el(.label, [.for: "f-wq", .class: "visually-hidden"]) { EscapedText(t(.searchProviders)) }
                    H.void(.input, [.type: "search", .id: "f-wq", .name: "q", .value: q, .placeholder: t(.searchProvidersHint)])
                    H.button(t(.searchProviders), kind: "quiet")
                }
            }
            if let q, !q.isEmpty {
                H.el(.section, [.class: "card"]) {
                    H.el(.h2, [:]) { EscapedText(t(.providerResults)) }
                    if providersUnreachable {
                        H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(t(.providersUnreachable)) }
                    } else if candidates.isEmpty {
                        H.el(.p, [.class: "empty"]) { EscapedText(t.format(.noMatches, q)) }
                    } else {
                        H.el(.ul, [.class: "titles"]) {
                            for c in candidates {
                                H.el(.li, [.class: "title-row"]) {
                                    Components.cover(c.coverURL, title: c.title ?? "", t: t)
                                    H.el(.span, [.class: "meta"]) {
                                        H.el(.span, [.class: "name"]) { EscapedText(c.title ?? "") }
                                        H.el(.span, [.class: "authors"]) { EscapedText((c.authors ?? []).joined(separator: ", ")) }
                                    }
                                    H.form(WebRoute.wishlist(library: lib).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                                        for (name, value) in [("title", c.title), ("subtitle", c.subtitle), ("authors", c.authors?.joined(separator: ", ")),
                                                              ("isbn", c.isbn13), ("publisher", c.publisher), ("publishedDate", c.publishedDate),
                                                              ("coverUrl", c.coverURL), ("language", c.language)] {
                                            if let value { H.void(.input, [.type: "hidden", .name: name, .value: value]) }
                                        }
                                        H.button(t(.addToWishlist), kind: "quiet", attrs: [.ariaLabel: t(.addToWishlist) + ": " + (c.title ?? "")])
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if canEdit {
                H.el(.details, [.class: "card", .open: form.isRefused || providersUnreachable ? "" : nil]) {
                    H.el(.summary, [:]) { EscapedText(t(.addWishByHand)) }
                    H.form(WebRoute.wishlist(library: lib).path, csrf: page.csrf) {
                        H.void(.input, [.type: "hidden", .name: "byHand", .value: "1"])
                        if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                        H.field(t(.title), name: "title", value: form["title"], required: true, error: form.errors["title"])
                        H.field(t(.authorsField), name: "authors", value: form["authors"], hint: t(.authorsHint), error: form.errors["authors"])
                        H.field(t(.isbn), name: "isbn", value: form["isbn"], error: form.errors["isbn"], extra: [.inputmode: "numeric"])
                        H.field(t(.requestedBy), name: "requestedBy", value: form["requestedBy"], error: form.errors["requestedBy"])
                        H.el(.div, [.class: form.errors["priority"] == nil ? "field" : "field invalid"]) {
                            H.el(.label, [.for: "f-priority"]) { EscapedText(t(.priority)) }
                            H.el(.select, [.id: "f-priority", .name: "priority"]) {
                                for (value, label) in [("2", t(.priorityNormal)), ("3", t(.priorityHigh)), ("1", t(.priorityLow))] {
                                    H.el(.option, [.value: value, .selected: (form["priority"] ?? "2") == value ? "" : nil]) { EscapedText(label) }
                                }
                            }
                            if let error = form.errors["priority"] { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
                        }
                        H.button(t(.addToWishlist))
                    }
                }
            }
            if items.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.wishlistEmpty)) }
            } else {
                H.el(.ul, [.class: "wishlist"]) {
                    for item in items {
                        H.el(.li, [.class: "card wish"]) {
                            Components.cover(item.coverUrl, title: item.title, t: t)
                            H.el(.div, [.class: "meta"]) {
                                H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                                H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) }
                                if let wish = wishes[item.id], wish.requestedBy != nil || wish.priority != nil {
                                    H.el(.span, [.class: "authors"]) {
                                        EscapedText([wish.requestedBy.map { t.format(.requestedByShown, $0) },
                                              wish.priority.map { t(.priority) + ": " + t($0 >= 3 ? .priorityHigh : ($0 <= 1 ? .priorityLow : .priorityNormal)) }]
                                            .compactMap { $0 }.joined(separator: " · "))
                                    }
                                }
                                H.el(.div, [.class: "actions"]) {
                                    let links = TitleQuery.links(isbn13: item.isbn13, title: item.title, authors: item.authors)
                                    if let amazon = links["amazon"] {
                                        H.el(.a, [.href: amazon, .class: "button quiet", .rel: "noopener", .target: "_blank"]) { EscapedText(t(.findOnAmazon)) }
                                    }
                                    // What a friend can open: the library's public wishlist, else the book at the store.
                                    let shared = published ? WebRoute.publicWishlist(library: lib).path + "#wish-" + item.id.uuidString
                                        : links["amazon"] ?? WebRoute.publicWishlist(library: lib).path
                                    H.el(.button, [.type: "button", .class: "button quiet", .hidden: "",
                                                    .dataShare: item.title, .dataShareUrl: shared,
                                                    .dataShareText: t.format(.shareText, item.title, item.authors.joined(separator: ", "))]) { EscapedText(t(.share)) }
                                    if canEdit {
                                        H.form(WebRoute.wishlistAcquire(library: lib, title: item.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                            H.field(t(.copiesField), name: "copies", type: "number", value: "1", required: true,
                                                    id: "f-copies-" + item.id.uuidString, extra: [.min: "1", .max: "500"])
                                            H.button(t(.acquire))
                                        }
                                        H.form(WebRoute.wishlistDelete(library: lib, title: item.id).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                                            H.button(t(.removeFromWishlist), kind: "danger")
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                Components.pager(paging, total: total, t: t) { self.url(page: $0) }
            }
        }
    }
}
