import Foundation
import Plot

extension EditTitlePage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let form = form
        return Layout.page(page, title: t(.editTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.editTitle) + ": " + storedTitle) }
            H.form(WebRoute.editTitle(library: libraryID, title: titleID).path, csrf: page.csrf, attrs: [.class: "card book-form"]) {
                if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.title), name: "title", value: form["title"], required: true, error: form.errors["title"])
                H.field(t(.subtitle), name: "subtitle", value: form["subtitle"], error: form.errors["subtitle"])
                H.field(t(.authorsField), name: "authors", value: form["authors"], hint: t(.authorsHint), error: form.errors["authors"])
                H.field(t(.isbn), name: "isbn", value: form["isbn"], error: form.errors["isbn"], extra: [.inputmode: "numeric"])
                H.field(t(.publisher), name: "publisher", value: form["publisher"], error: form.errors["publisher"])
                H.field(t(.publishedDate), name: "publishedDate", value: form["publishedDate"], error: form.errors["publishedDate"])
                H.field(t(.pageCount), name: "pageCount", type: "number", value: form["pageCount"], error: form.errors["pageCount"],
                        extra: [.min: "1"])
                H.field(t(.languageField), name: "language", value: form["language"], error: form.errors["language"])
                Components.stars(name: "rating", value: form["rating"].flatMap { Double($0.replacingOccurrences(of: ",", with: ".")) },
                                 label: t(.rating), error: form.errors["rating"], t: t)
                H.field(t(.categories), name: "categories", value: form["categories"], hint: t(.authorsHint), error: form.errors["categories"])
                H.el(.div, [.class: "pair"]) {
                    H.field(t(.seriesField), name: "series", value: form["series"], error: form.errors["series"])
                    H.field(t(.seriesNumberField), name: "seriesNumber", value: form["seriesNumber"], error: form.errors["seriesNumber"],
                            extra: [.inputmode: "decimal"])
                }
                H.field(t(.moreSeriesField), name: "moreSeries", value: form["moreSeries"], hint: t(.moreSeriesHint), error: form.errors["moreSeries"])
                H.field(t(.readingLevelField), name: "readingLevel", value: form["readingLevel"], hint: t(.readingLevelHint), error: form.errors["readingLevel"])
                if !isWishlist {
                    H.field(t(.callNumberField), name: "callNumber", value: form["callNumber"], hint: t(.callNumberHint), error: form.errors["callNumber"])
                }
                H.textarea(t(.description), name: "description", value: form["description"], rows: 6, error: form.errors["description"])
                H.field(t(.coverURL), name: "coverUrl", value: form["coverUrl"], error: form.errors["coverUrl"])
                if !isWishlist {
                    H.field(t(.copiesField), name: "totalCopies", type: "number", value: form["totalCopies"], required: true,
                            error: form.errors["totalCopies"], extra: [.min: String(copiesOnLoan), .max: "500"])
                }
                H.button(t(.save))
            }
        }
    }
}
