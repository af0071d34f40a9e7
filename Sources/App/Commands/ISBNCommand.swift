import Foundation
import ShelfmarkCore

/// `shelfmark isbn TEXT…`: checks ISBNs from a shell. One tab-separated line per input:
/// `input, valid, ISBN-13, ISBN-10 (or -), hyphenated ISBN-13` or `input, invalid, reason`.
/// With no arguments it reads lines from standard input. Needs no database, so the executable
/// runs it before starting the application (ConsoleKit signatures cannot take a variable list).
public enum ISBNCheck {
    public static func run(_ arguments: [String], readLine: () -> String? = { Swift.readLine() }, print: (String) -> Void = { Swift.print($0) }) {
        if arguments.isEmpty {
            while let line = readLine() {
                let input = line.trimmingCharacters(in: .whitespaces)
                if !input.isEmpty { print(self.line(for: input)) }
            }
        } else {
            for input in arguments { print(line(for: input)) }
        }
    }

    public static func line(for input: String) -> String {
        do {
            let isbn = try ISBN(input)
            return [input, "valid", isbn.isbn13, isbn.isbn10 ?? "-", isbn.hyphenated].joined(separator: "\t")
        } catch {
            return [input, "invalid", error.description].joined(separator: "\t")
        }
    }
}
