import Foundation
import Plot

extension CategoriesPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, categories) = (libraryID, categories)
        return Layout.page(page, title: t(.manageCategories)) {
            H.el(.h1, [:]) { EscapedText(t(.manageCategories)) }
            let new = self.form(for: nil)
            H.form(WebRoute.categories(library: lib).path, csrf: page.csrf, attrs: [.class: "card inline-form"]) {
                if let general = new.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.newCategory), name: "name", value: new["name"], required: true, id: "f-new-category", error: new.errors["name"])
                H.button(t(.newCategory))
            }
            if categories.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noCategories)) }
            }
            H.el(.ul, [.class: "categories"]) {
                for category in categories {
                    let form = self.form(for: category.id)
                    let id = category.id.uuidString
                    H.el(.li, [.class: "card"]) {
                        H.el(.h2, [:]) {
                            H.link(category.name, WebRoute.catalog(library: lib).path(query: [("show", "cat-" + id)]))
                            EscapedText(" · " + t(.titles, category.titleCount))
                        }
                        if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                        H.form(WebRoute.categoryRename(library: lib, category: category.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                            H.field(t(.renameTo), name: "name", value: form["name"] ?? category.name, required: true, id: "f-rename-" + id,
                                    error: form.errors["name"])
                            H.button(t(.rename), kind: "quiet")
                        }
                        H.form(WebRoute.categoryCallNumbers(library: lib, category: category.id).path, csrf: page.csrf,
                               attrs: [.class: "inline-form", .ariaLabel: t(.categoryCallNumbersHeading) + ": " + category.name]) {
                            H.field(t(.categoryPrefixField), name: "prefix", value: form["prefix"] ?? category.callNumberPrefix ?? "",
                                    hint: t(.categoryPrefixHint), id: "f-prefix-" + id, error: form.errors["prefix"],
                                    extra: [.maxlength: String(CategoryCallNumbers.maxPrefix), .autocapitalize: "characters"])
                            H.el(.div, [.class: "field"]) {
                                H.el(.label, [.class: "pick"]) {
                                    let dewey = form["withDewey"].map { $0 == "true" } ?? category.callNumberDewey
                                    H.void(.input, [.type: "checkbox", .name: "withDewey", .value: "true", .checked: dewey ? "" : nil])
                                    EscapedText(" " + t(.categoryPrefixDewey))
                                }
                            }
                            H.button(t(.save), kind: "quiet", attrs: [.ariaLabel: t(.save) + ": " + t(.categoryCallNumbersHeading) + ", " + category.name])
                        }
                        if categories.count > 1 {
                            H.form(WebRoute.categoryMerge(library: lib, category: category.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                H.el(.div, [.class: "field"]) {
                                    H.el(.label, [.for: "f-merge-" + id]) { EscapedText(t(.mergeInto)) }
                                    H.el(.select, [.id: "f-merge-" + id, .name: "into"]) {
                                        for other in categories where other.id != category.id {
                                            H.el(.option, [.value: other.id.uuidString]) { EscapedText(other.name) }
                                        }
                                    }
                                }
                                H.button(t(.merge), kind: "quiet")
                            }
                        }
                        H.form(WebRoute.categoryDelete(library: lib, category: category.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                            H.el(.p, [.class: "hint"]) { EscapedText(t(.deleteCategoryHint)) }
                            H.button(t(.deleteCategory), kind: "danger", attrs: [.ariaLabel: t(.deleteCategory) + ": " + category.name])
                        }
                    }
                }
            }
        }
    }
}
