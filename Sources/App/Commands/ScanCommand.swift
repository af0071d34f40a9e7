import Foundation
import ShelfmarkImaging

/// `shelfmark scan IMAGE…`: reads barcodes from image files. One tab-separated line per file:
/// `file, symbology, text` for the first code found, `file, none` when there is none, or
/// `file, error, reason` when the file is not a readable image. `--timing` adds the milliseconds
/// the read took as a last column (for `make bench-scan`). Needs no database: the executable runs it
/// before starting the application. Exit status 1 when a file could not be read at all.
public enum ScanCheck {
    public static func run(_ arguments: [String], print: (String) -> Void = { Swift.print($0) }) -> Int32 {
        var timing = false
        var files: [String] = []
        for arg in arguments {
            if arg == "--timing" { timing = true } else { files.append(arg) }
        }
        guard !files.isEmpty else {
            print("usage: shelfmark scan [--timing] IMAGE…")
            return 2
        }
        let reader = BarcodeReader()
        var status: Int32 = 0
        for file in files {
            var fields = [file]
            let started = ContinuousClock.now
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let result = try reader.read(data)
                if let code = result.barcodes.first {
                    fields += [code.symbology.rawValue, code.text]
                } else {
                    fields.append("none")
                }
            } catch let error as ImageError {
                fields += ["error", error.description]
                status = 1
            } catch {
                fields += ["error", "cannot read the file: \(error.localizedDescription)"]
                status = 1
            }
            if timing {
                let d = ContinuousClock.now - started
                fields.append(String(format: "%.1f", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000))
            }
            print(fields.joined(separator: "\t"))
        }
        return status
    }
}
