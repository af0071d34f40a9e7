import Foundation
import ShelfmarkImaging

/// `shelfmark scan IMAGE…`: reads barcodes from image files. One tab-separated line per file:
/// `file, symbology, text` for the first code found, `file, none` when there is none, or
/// `file, error, reason` when the file is not a readable image. `--timing` adds the milliseconds
/// the read took as a last column (for `make bench-scan`). `--live` reads each photo as one frame of
/// the live camera path: made a 1280×720 JPEG first, then read by `BarcodeReader.readFrame` (timed alone). Needs no database: the executable runs it
/// before starting the application. Exit status 1 when a file could not be read at all.
public enum ScanCheck {
    public static func run(_ arguments: [String], print: (String) -> Void = { Swift.print($0) }) -> Int32 {
        var timing = false
        var live = false
        var files: [String] = []
        for arg in arguments {
            switch arg {
            case "--timing": timing = true
            case "--live": live = true
            default: files.append(arg)
            }
        }
        guard !files.isEmpty else {
            print("usage: shelfmark scan [--timing] [--live] IMAGE…")
            return 2
        }
        let reader = BarcodeReader()
        var status: Int32 = 0
        for file in files {
            var fields = [file]
            var started = ContinuousClock.now
            do {
                var data = try Data(contentsOf: URL(fileURLWithPath: file))
                let result: BarcodeReader.Result
                if live {
                    // The photo as a 1280×720 camera frame; timed from the frame's JPEG, as the server gets it.
                    data = try BarcodeReader.frame(data, width: 1280, height: 720)
                    started = ContinuousClock.now
                    result = try reader.readFrame(data)
                } else {
                    result = try reader.read(data)
                }
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
