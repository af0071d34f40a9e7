import Foundation
import Plot
import ShelfmarkCore

extension CatalogPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, q, chip, grid, result, categories, searching) = (libraryID, q, chip, grid, result, categories, searching)
        return Layout.page(page, title: t(.catalog)) {
            H.el(.h1, [.class: "visually-hidden"]) { EscapedText(t(.catalog)) }
            H.el(.form, [.method: "get", .action: WebRoute.catalog(library: lib).path, .role: "search", .class: "search"]) {
                H.el(.label, [.for: "f-q", .class: "visually-hidden"]) { EscapedText(t(.search)) }
                H.void(.input, [.type: "search", .id: "f-q", .name: "q", .value: q, .placeholder: t(.searchPlaceholder),
                                 .autocomplete: "off", .dataLiveSearch: WebRoute.catalog(library: lib).path])
                if chip != "all" { H.void(.input, [.type: "hidden", .name: "show", .value: chip]) }
                if sort != .title { H.void(.input, [.type: "hidden", .name: "sort", .value: sort.rawValue]) }
                if grid { H.void(.input, [.type: "hidden", .name: "view", .value: "grid"]) }
                if select != .off { H.void(.input, [.type: "hidden", .name: "select", .value: "1"]) }
                for (name, value) in narrow.query { if let value { H.void(.input, [.type: "hidden", .name: name, .value: value]) } }
                H.button(t(.search), kind: "quiet", attrs: [.dataHideWithJs: ""])
            }
            narrowing(t, page: page)
            H.el(.nav, [.class: "chips", .ariaLabel: t(.catalog)]) {
                Components.chipLink(t(.filterAll), self.url(show: "all"), current: chip == "all")
                Components.chipLink(t(.favoritesCount, result.favoritesCount), self.url(show: "favorites"), current: chip == "favorites")
                Components.chipLink(t(.filterOnLoan), self.url(show: "onloan"), current: chip == "onloan")
                Components.chipLink(t(.filterOverdue), self.url(show: "overdue"), current: chip == "overdue")
                Components.chipLink(t(.wishlist), WebRoute.wishlist(library: lib).path, current: false)
                for category in categories {
                    Components.chipLink(category.name + " (" + t.number(category.titleCount) + ")", self.url(show: "cat-" + category.id.uuidString),
                             current: chip == "cat-" + category.id.uuidString)
                }
                for collection in collections {
                    Components.chipLink("★ " + collection.name, self.url(show: "col-" + collection.id.uuidString), current: chip == "col-" + collection.id.uuidString)
                }
                H.el(.span, [.class: "spacer"]) {}
                Components.chipLink(t(.viewList), self.url(view: "list"), current: !grid)
                Components.chipLink(t(.viewGrid), self.url(view: "grid"), current: grid)
            }
            if let change = lastChange, page.may(.catalog) {
                H.form(WebRoute.catalogUndo(library: lib).path, csrf: page.csrf, attrs: [.class: "card bulk-last"]) {
                    H.el(.p, [:]) {
                        EscapedText(t.format(.bulkLastChange, t.bulkChange(change.action, change.value), t(.titles, change.changed), change.by,
                                             t.time(change.at)))
                    }
                    H.button(t(.bulkUndo), kind: "quiet")
                }
            }
            if !searching || result.order == .title {
                Components.sortChips([(TitleSort.title, t(.sortTitle)), (.author, t(.sortAuthor)), (.newest, t(.sortNewest)), (.borrowed, t(.sortBorrowed)), (.shelf, t(.sortShelf))],
                                     current: sort, t: t) { self.url(sort: $0) }
            }
            H.el(.div, [.id: "results", .ariaLive: "polite"]) {
                H.el(.p, [.class: "count"]) {
                    EscapedText(t(result.totalIsLowerBound ? .titlesMoreThan : .titles, result.total))
                    // What the "2/3" pills say, once per page.
                    if !result.items.isEmpty { H.el(.span, [.class: "legend"]) { EscapedText(" · " + t(.badgeLegend)) } }
                }
                if select == .off, !result.items.isEmpty, page.may(.catalog) {
                    H.el(.p, [.class: "select-toggle"]) { H.link(t(.bulkSelect), self.url(select: .on), cls: "button quiet") }
                }
                if result.items.isEmpty {
                    if searching {
                        H.el(.p, [.class: "empty"]) { EscapedText(t.format(.noMatches, q ?? "")) }
                    } else if chip == "all" {
                        H.el(.div, [.class: "empty card"]) {
                            H.el(.h2, [:]) { EscapedText(t(.noTitlesYet)) }
                            H.el(.p, [:]) { EscapedText(t(.noTitlesYetHint)) }
                            if page.may(.catalog) { H.link(t(.addTitle), WebRoute.add(library: lib).path, cls: "button primary") }
                        }
                    }
                } else if select != .off, page.may(.catalog) {
                    selecting(t, page: page)
                } else if grid {
                    H.el(.ul, [.class: "wall"]) {
                        for item in result.items { H.el(.li, [:]) { Components.wallItem(item, lib: lib, t: t) } }
                    }
                } else if searching || result.order == .recent || sort != .title {
                    H.el(.ul, [.class: "titles"]) {
                        for item in result.items { Components.titleRow(item, lib: lib, t: t) }
                    }
                } else {
                    if let sections = result.sections, sections.count > 1 {
                        H.el(.nav, [.class: "az", .ariaLabel: t(.jumpTo)]) {
                            // Each letter leads to the page where it starts, wherever that is in the catalog.
                            for s in sections { H.link(s.letter, self.url(letter: s.letter)) }
                        }
                    }
                    for (letter, items) in Self.grouped(result.items) {
                        H.el(.section, [.class: "az-section", .id: "sec-" + (letter == "#" ? "num" : letter)]) {
                            H.el(.h2, [:]) { EscapedText(letter) }
                            H.el(.ul, [.class: "titles"]) {
                                for item in items { Components.titleRow(item, lib: lib, t: t) }
                            }
                        }
                    }
                }
                Components.pager(paging, total: result.totalIsLowerBound ? nil : result.total, hasMore: result.items.count == paging.size, t: t,
                                 step: { self.url($0) })
            }
        }
    }

    /// The page's books with a box each and the change to make to the ticked ones, at the bottom
    /// where a thumb reaches it.
    func selecting(_ t: Strings, page: PageContext) -> any Component {
        let (lib, items, checked) = (libraryID, result.items, select == .all)
        let values = Array(Set(categories.map(\.name) + locations)).sorted()
        return H.form(WebRoute.catalogChange(library: lib).path, csrf: page.csrf, attrs: [.class: "bulk", .id: "bulk-form"]) {
            H.void(.input, [.type: "hidden", .name: "back", .value: self.url(select: .off)])
            H.el(.p, [.class: "bulk-modes"]) {
                H.link(t(.bulkSelectAll), self.url(select: .all))
                H.link(t(.bulkSelectEnd), self.url(select: .off))
            }
            H.el(.ul, [.class: "titles selectable"]) {
                for item in items {
                    H.el(.li, [:]) {
                        H.el(.label, [.class: "title-row picker"]) {
                            H.void(.input, [.type: "checkbox", .name: "title", .value: item.id.uuidString, .checked: checked ? "" : nil])
                            Components.cover(item.coverUrl, title: item.title, t: t)
                            H.el(.span, [.class: "meta"]) {
                                H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                                if !item.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) } }
                                if let shelf = item.shelves.first { H.el(.span, [.class: "shelf"]) { EscapedText(t.format(.shelfHeading, shelf)) } }
                                if let callNumber = item.callNumber { H.el(.span, [.class: "call-number"]) { EscapedText(callNumber) } }
                            }
                        }
                    }
                }
            }
            H.el(.p, [.class: "hint", .id: "f-bulk-value-hint"]) { EscapedText(t(.bulkValueHint)) }
            H.el(.div, [.class: "bulk-bar"]) {
                H.el(.span, [:]) {
                    H.el(.label, [.for: "f-bulk-action"]) { EscapedText(t(.bulkActionField)) }
                    H.el(.select, [.id: "f-bulk-action", .name: "action"]) {
                        for action in BulkAction.allCases { H.el(.option, [.value: action.rawValue]) { EscapedText(t(action.label)) } }
                    }
                }
                H.el(.span, [:]) {
                    H.el(.label, [.for: "f-bulk-value"]) { EscapedText(t(.bulkValueField)) }
                    H.void(.input, [.type: "text", .id: "f-bulk-value", .name: "value", .list: "f-bulk-values", .maxlength: "300",
                                     .autocomplete: "off", .ariaDescribedby: "f-bulk-value-hint"])
                }
                H.el(.datalist, [.id: "f-bulk-values"]) { for value in values { H.el(.option, [.value: value]) } }
                H.button(t(.bulkContinue))
            }
        }
    }

    /// Titles in runs of their A–Z section, in order.
    static func grouped(_ items: [TitleSummary]) -> [(String, [TitleSummary])] {
        var out: [(String, [TitleSummary])] = []
        for item in items {
            if out.last?.0 == item.section { out[out.count - 1].1.append(item) } else { out.append((item.section, [item])) }
        }
        return out
    }

    /// The shelf and reading level form's fields (the staff catalog's and the public catalog's): a GET to
    /// `action` keeping `keep` (the search, the chip …), a shelf (with `locations` to choose from), a reading
    /// level's scheme and range, and "show everything" (`clear`) while something is chosen.
    /// `reading`: whether to offer "your reading" (staff signed in; not the public catalog).
    static func narrowForm(action: String, keep: [(String, String?)], narrow: Narrowing, locations: [String], clear: String?,
                           t: Strings, reading: Bool = false) -> any Component {
        let schemes: [(ReadingLevel.Scheme, L)] = [(.ar, .schemeAR), (.lexile, .schemeLexile), (.guided, .schemeGuided), (.antolin, .schemeAntolin), (.other, .schemeOther)]
        func number(_ n: Double?) -> String? { n.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } }
        return H.el(.form, [.method: "get", .action: action, .class: "print-options"]) {
            for (name, value) in keep { if let value, !value.isEmpty { H.void(.input, [.type: "hidden", .name: name, .value: value]) } }
            H.field(t(.location), name: "shelf", value: narrow.shelf, extra: locations.isEmpty ? [:] : [.list: "f-shelves"])
            if !locations.isEmpty { H.el(.datalist, [.id: "f-shelves"]) { for location in locations { H.el(.option, [.value: location]) } } }
            H.el(.div, [.class: "field"]) {
                H.el(.label, [.for: "f-level"]) { EscapedText(t(.levelSchemeField)) }
                H.el(.select, [.id: "f-level", .name: "level"]) {
                    H.el(.option, [.value: ""]) { EscapedText(t(.anyLevel)) }
                    for (scheme, name) in schemes {
                        H.el(.option, [.value: scheme.rawValue, .selected: narrow.scheme == scheme ? "" : nil]) { EscapedText(t(name)) }
                    }
                }
            }
            H.el(.div, [.class: "pair"]) {
                H.field(t(.levelFrom), name: "levelMin", type: "text", value: number(narrow.levelMin), extra: [.inputmode: "decimal"])
                H.field(t(.levelTo), name: "levelMax", type: "text", value: number(narrow.levelMax), extra: [.inputmode: "decimal"])
            }
            H.el(.div, [.class: "field"]) {
                H.el(.label, [.for: "f-rating"]) { EscapedText(t(.narrowRating)) }
                H.el(.select, [.id: "f-rating", .name: "rating"]) {
                    H.el(.option, [.value: ""]) { EscapedText(t(.ratingAny)) }
                    for n in 1...5 {
                        H.el(.option, [.value: String(n), .selected: narrow.minRating == Double(n) ? "" : nil]) {
                            EscapedText(t.format(.ratingAtLeast, t.number(n)))
                        }
                    }
                }
            }
            if reading {
                let statuses: [(ReadingFilter, L)] = [(.wantToRead, .readWant), (.reading, .readReading), (.finished, .readFinished),
                                                      (.didNotFinish, .readDNF), (.unread, .readingNotFinished)]
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-reading"]) { EscapedText(t(.yourReading)) }
                    H.el(.select, [.id: "f-reading", .name: "reading"]) {
                        H.el(.option, [.value: ""]) { EscapedText(t(.readingAny)) }
                        for (status, name) in statuses {
                            H.el(.option, [.value: status.rawValue, .selected: narrow.reading == status ? "" : nil]) { EscapedText(t(name)) }
                        }
                    }
                }
            }
            H.button(t(.narrowApply), kind: "quiet")
            if let clear { H.link(t(.narrowClear), clear, cls: "button quiet") }
        }
    }

    /// The shelf and reading level form: open while either is chosen, with a way back to everything.
    func narrowing(_ t: Strings, page: PageContext) -> any Component {
        let (lib, narrow, locations, q, chip) = (libraryID, narrow, locations, q, chip)
        return H.el(.details, [.class: "narrow card", .open: narrow.isEmpty ? nil : ""]) {
            H.el(.summary, [:]) { EscapedText(t(.narrowTitle)) }
            Self.narrowForm(action: WebRoute.catalog(library: lib).path, keep: [("q", q), ("show", chip == "all" ? nil : chip)], narrow: narrow,
                            locations: locations, clear: narrow.isEmpty ? nil : CatalogPage.link(lib, q: q, chip: chip, grid: grid, sort: sort, page: 1), t: t,
                            reading: true)
            // What the list shows now, saved with a name as a smart collection (librarians).
            if page.may(.catalog), !chip.hasPrefix("col-") {
                H.form(WebRoute.collections(library: lib).path, csrf: page.csrf, attrs: [.class: "print-options"]) {
                    if let q, !q.isEmpty { H.void(.input, [.type: "hidden", .name: "q", .value: q]) }
                    if chip != "all" { H.void(.input, [.type: "hidden", .name: "show", .value: chip]) }
                    for (name, value) in narrow.query { if let value { H.void(.input, [.type: "hidden", .name: name, .value: value]) } }
                    H.field(t(.collectionName), name: "name", required: true, extra: [.maxlength: "80"])
                    H.el(.div, [.class: "pair"]) {
                        H.field(t(.addedWithinDays), name: "addedWithinDays", type: "number", extra: [.min: "1", .max: "3650", .inputmode: "numeric"])
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "checkbox", .name: "available", .value: "true"])
                            EscapedText(" " + t(.onlyAvailable))
                        }
                    }
                    H.button(t(.saveAsCollection), kind: "quiet")
                }
            }
        }
    }
}
