import CImaging
import Foundation

extension BarcodeReader {
    public static func explore(_ data: Data) throws -> [String] {
        let gray = try Bitmap.decodeGray(data)
        let scanner = ZBarScanner(symbologies: [.ean13])
        var out: [String] = []
        for scale in [0.3, 0.4, 0.5, 0.6, 0.75, 1, 1.25, 1.5, 2, 2.5, 3] {
            guard let s = gray.scaled(scale) else { continue }
            let ops: [(String, (Bitmap) -> Bitmap?)] = [
                ("plain", { $0 }), ("sharp", { $0.sharpened() }),
                ("sharp2", { Bitmap(pixUnsharpMaskingGray($0.pointer, 4, 1.0)) }),
                ("cnorm", { $0.contrastNormalized() }), ("bin", { $0.binarized() }),
                ("rot5", { $0.rotated(degrees: 5) }), ("rot-5", { $0.rotated(degrees: -5) }),
                ("rot10", { $0.rotated(degrees: 10) }), ("rot-10", { $0.rotated(degrees: -10) }),
                ("y.5", { Bitmap(pixScale($0.pointer, 1, 0.5)) }), ("y.25", { Bitmap(pixScale($0.pointer, 1, 0.25)) }),
                ("y.25s", { Bitmap(pixScale($0.pointer, 1, 0.25)).flatMap { Bitmap(pixUnsharpMaskingGray($0.pointer, 3, 0.8)) } }),
                ("y.5s", { Bitmap(pixScale($0.pointer, 1, 0.5)).flatMap { Bitmap(pixUnsharpMaskingGray($0.pointer, 3, 0.8)) } }),
                ("y.125", { Bitmap(pixScale($0.pointer, 1, 0.125)) }),
                ("li2x", { Bitmap(pixScaleGrayLI($0.pointer, 2, 1)) }),
            ]
            for (name, op) in ops {
                guard let p = op(s) else { continue }
                let syms = scanner.scan(p)
                if !syms.isEmpty { out.append("\(scale) \(name): " + syms.map { "\($0.text) q\($0.quality)" }.joined(separator: ",")) }
            }
        }
        return out
    }
}
