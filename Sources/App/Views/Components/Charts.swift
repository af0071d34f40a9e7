import Foundation
import Plot

/// Charts drawn on the server as SVG: they work without JavaScript, print, and can go into a
/// PDF. Each has a title for screen readers (`role="img"`, `aria-labelledby`) and a table with the
/// same numbers beside it (the reading statistics' under the chart, the reports' after it).
enum Charts {
    /// Vertical bars, one per label, the value over each bar.
    static func bars(id: String, title: String, labels: [String], values: [Int], t: Strings, columnTitle: String, valueTitle: String) -> any Component {
        let width = 340.0, height = 170.0, top = 18.0, bottom = 22.0
        let maxValue = max(1, values.max() ?? 1)
        let slot = width / Double(max(1, values.count))
        let barWidth = max(4, slot * 0.64)
        return H.el(.figure, [.class: "chart"]) {
            H.el(.svg, [.viewBox: "0 0 \(Int(width)) \(Int(height))", .role: "img", .ariaLabelledby: id + "-title", .focusable: "false",
                        .class: "bars"]) {
                H.el(.title, [.id: id + "-title"]) { EscapedText(title) }
                H.void(.line, [.x1: "0", .y1: fmt(height - bottom), .x2: fmt(width), .y2: fmt(height - bottom), .class: "axis"])
                for (i, value) in values.enumerated() {
                    let h = (height - top - bottom) * Double(value) / Double(maxValue)
                    let x = slot * Double(i) + (slot - barWidth) / 2
                    if value > 0 {
                        H.void(.rect, [.x: fmt(x), .y: fmt(height - bottom - h), .width: fmt(barWidth), .height: fmt(h), .rx: "2", .class: "bar"])
                        H.el(.text, [.x: fmt(x + barWidth / 2), .y: fmt(height - bottom - h - 4), .textAnchor: "middle", .class: "value"]) {
                            EscapedText(t.number(value))
                        }
                    }
                    H.el(.text, [.x: fmt(x + barWidth / 2), .y: fmt(height - 6), .textAnchor: "middle", .class: "label"]) { EscapedText(labels[i]) }
                }
            }
            H.el(.details, [.class: "chart-table"]) {
                H.el(.summary, [:]) { EscapedText(t(.showAsTable)) }
                table(columns: [columnTitle, valueTitle], rows: zip(labels, values).map { [$0, t.number($1)] })
            }
        }
    }

    /// Columns over time: one group per label with a column for each series (at most two, the second
    /// in the second colour, a legend under it); every `step`-th label written when they are many.
    static func columns(id: String, title: String, labels: [String], series: [(name: String, values: [Double])],
                        format: @escaping (Double) -> String) -> any Component {
        let width = 340.0, height = 170.0, top = 18.0, bottom = 22.0
        let shown = Array(series.prefix(2))
        let maxValue = max(1, shown.flatMap(\.values).max() ?? 1)
        let slot = width / Double(max(1, labels.count))
        let groupWidth = min(64, max(3, slot * 0.7)), barWidth = groupWidth / Double(max(1, shown.count))
        let step = max(1, Int((Double(labels.count) / 12).rounded(.up)))
        let valuesFit = labels.count <= 12 && shown.count == 1
        return H.el(.figure, [.class: "chart"]) {
            H.el(.svg, [.viewBox: "0 0 \(Int(width)) \(Int(height))", .role: "img", .ariaLabelledby: id + "-title", .focusable: "false",
                        .class: "bars"]) {
                H.el(.title, [.id: id + "-title"]) { EscapedText(title) }
                H.void(.line, [.x1: "0", .y1: fmt(height - bottom), .x2: fmt(width), .y2: fmt(height - bottom), .class: "axis"])
                for i in labels.indices {
                    let x0 = slot * Double(i) + (slot - groupWidth) / 2
                    for (s, line) in shown.enumerated() where i < line.values.count && line.values[i] > 0 {
                        let h = (height - top - bottom) * line.values[i] / maxValue
                        let x = x0 + Double(s) * barWidth
                        H.void(.rect, [.x: fmt(x), .y: fmt(height - bottom - h), .width: fmt(max(1, barWidth - 1)), .height: fmt(h), .rx: "1",
                                       .class: s == 0 ? "bar" : "bar second"])
                        if valuesFit {
                            H.el(.text, [.x: fmt(x + barWidth / 2), .y: fmt(height - bottom - h - 4), .textAnchor: "middle", .class: "value"]) {
                                EscapedText(format(line.values[i]))
                            }
                        }
                    }
                    if i % step == 0 {
                        H.el(.text, [.x: fmt(x0 + groupWidth / 2), .y: fmt(height - 6), .textAnchor: "middle", .class: "label"]) { EscapedText(labels[i]) }
                    }
                }
            }
            if shown.count > 1 {
                H.el(.figcaption, [.class: "legend"]) {
                    for (s, line) in shown.enumerated() {
                        H.el(.span, [.class: s == 0 ? "key" : "key second"]) { EscapedText(line.name) }
                    }
                }
            }
        }
    }

    /// Bars side by side, largest first: a label, its bar and its value on each line (at most `limit`).
    static func hbars(id: String, title: String, labels: [String], values: [Double], limit: Int = 12, format: @escaping (Double) -> String) -> any Component {
        let pairs = Array(zip(labels, values).filter { $0.1 > 0 }.sorted { $0.1 > $1.1 }.prefix(limit))
        let width = 340.0, line = 20.0, labelWidth = 110.0, valueWidth = 44.0
        let height = max(line, Double(pairs.count) * line)
        let maxValue = max(1, pairs.map(\.1).max() ?? 1)
        return H.el(.figure, [.class: "chart"]) {
            H.el(.svg, [.viewBox: "0 0 \(Int(width)) \(Int(height))", .role: "img", .ariaLabelledby: id + "-title", .focusable: "false",
                        .class: "bars"]) {
                H.el(.title, [.id: id + "-title"]) { EscapedText(title) }
                for (i, (label, value)) in pairs.enumerated() {
                    let y = Double(i) * line
                    let w = (width - labelWidth - valueWidth) * value / maxValue
                    let short = label.count > 18 ? String(label.prefix(17)) + "…" : label
                    H.el(.text, [.x: fmt(labelWidth - 4), .y: fmt(y + 14), .textAnchor: "end", .class: "label"]) { EscapedText(short) }
                    H.void(.rect, [.x: fmt(labelWidth), .y: fmt(y + 3), .width: fmt(max(1, w)), .height: fmt(line - 6), .rx: "2", .class: "bar"])
                    H.el(.text, [.x: fmt(labelWidth + w + 4), .y: fmt(y + 14), .class: "value"]) { EscapedText(format(value)) }
                }
            }
        }
    }

    /// A ring filled to `fraction`, the text in its middle.
    static func ring(id: String, title: String, fraction: Double, center: String, sub: String?) -> any Component {
        let r = 52.0, c = 2 * Double.pi * r
        let filled = c * min(1, max(0, fraction))
        return H.el(.svg, [.viewBox: "0 0 128 128", .role: "img", .ariaLabelledby: id + "-title", .focusable: "false", .class: "ring"]) {
            H.el(.title, [.id: id + "-title"]) { EscapedText(title) }
            H.void(.circle, [.cx: "64", .cy: "64", .r: fmt(r), .class: "track"])
            H.void(.circle, [.cx: "64", .cy: "64", .r: fmt(r), .class: "fill", .strokeDasharray: fmt(filled) + " " + fmt(c),
                             .transform: "rotate(-90 64 64)"])
            H.el(.text, [.x: "64", .y: sub == nil ? "70" : "64", .textAnchor: "middle", .class: "big"]) { EscapedText(center) }
            if let sub { H.el(.text, [.x: "64", .y: "84", .textAnchor: "middle", .class: "small"]) { EscapedText(sub) } }
        }
    }

    static func table(columns: [String], rows: [[String]]) -> any Component {
        H.el(.table, [.class: "data"]) {
            H.el(.thead, [:]) { H.el(.tr, [:]) { for c in columns { H.el(.th, [.scope: "col"]) { EscapedText(c) } } } }
            H.el(.tbody, [:]) {
                for row in rows {
                    H.el(.tr, [:]) {
                        for (i, cell) in row.enumerated() {
                            if i == 0 { H.el(.th, [.scope: "row"]) { EscapedText(cell) } } else { H.el(.td, [:]) { EscapedText(cell) } }
                        }
                    }
                }
            }
        }
    }

    private static func fmt(_ v: Double) -> String { String(format: "%.1f", v) }
}
