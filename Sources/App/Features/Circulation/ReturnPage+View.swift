import Foundation
import Plot

extension ReturnPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, form) = (libraryID, form)
        return Layout.page(page, title: t(.returnTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.returnTitle)) }
            if let loan {
                H.el(.section, [.class: "card confirm"]) {
                    Components.cover(coverURL, title: loan.title, t: t, size: "large")
                    if loan.overdue {
                        H.el(.p, [.class: "warning", .role: "alert"]) {
                            EscapedText("⚠ " + t(.daysOverdue, loan.daysOverdue) + (consequence.map { " · " + $0 } ?? ""))
                        }
                    }
                    H.el(.dl, [.class: "facts"]) {
                        Components.fact(t(.bookField), loan.title)
                        Components.fact(t(.borrowedBy), loan.memberName + " (" + loan.memberCardId + ")")
                        Components.fact(t(.checkedOutOn), t.date(loan.checkedOutAt))
                        Components.fact(t(.dueDate), t.date(loan.dueAt))
                    }
                    if let back = fromList {
                        H.form(WebRoute.loanReturn(library: lib, loan: loan.id).path, csrf: page.csrf, attrs: [.class: "actions"]) {
                            H.void(.input, [.type: "hidden", .name: "back", .value: back])
                            H.void(.input, [.type: "hidden", .name: "confirmed", .value: "true"])
                            H.button(t(.confirmReturn), attrs: [.autofocus: ""])
                            H.link(t(.keepAsIs), back, cls: "button quiet")
                        }
                    } else {
                        H.form(WebRoute.returnBook(library: lib).path, csrf: page.csrf) {
                            H.void(.input, [.type: "hidden", .name: "loanId", .value: loan.id.uuidString])
                            H.button(t(.confirmReturn), attrs: [.autofocus: ""])
                        }
                    }
                }
            } else {
                H.el(.section, [.class: "card scan split", .dataScanner: ""]) {
                    H.el(.button, [.type: "button", .class: "button primary", .dataScanStart: "", .dataScanFor: "f-barcode", .dataScanKind: "any",
                                   .hidden: ""]) { Components.cameraIcon(); EscapedText(t(.scanBarcode)) }
                    Components.liveScan(t)
                    H.el(.form, [.method: "get", .action: WebRoute.returnBook(library: lib).path]) {
                        H.field(t(.copyBarcode), name: "barcode", value: form["barcode"], hint: t(.copyBarcodeHint), required: true,
                                error: form.errors["barcode"], extra: [.autocomplete: "off", .autocapitalize: "characters", .dataScanTarget: "",
                                                                       .autofocus: ""])
                        H.button(t(.returnBook))
                    }
                }
            }
        }
    }
}
