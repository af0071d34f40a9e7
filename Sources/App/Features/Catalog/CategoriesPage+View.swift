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
