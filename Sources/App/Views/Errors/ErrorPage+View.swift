import Foundation
import Plot

extension ErrorPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (title, message) = (title, message)
        return Layout.page(page, title: title) {
            H.el(.section, [.class: "card error-page"]) {
                H.el(.h1, [:]) { EscapedText(title) }
                H.el(.p, [:]) { EscapedText(message) }
                H.el(.p, [:]) { H.link(t(.backToCatalog), WebRoute.home.path, cls: "button") }
            }
        }
    }
}
