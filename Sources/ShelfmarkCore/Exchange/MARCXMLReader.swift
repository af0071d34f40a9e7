import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads MARCXML (with or without a namespace prefix, a `<collection>` or a single `<record>`).
/// Each record carries the line it starts on; an XML error ends reading there, after the records
/// before it, with the line and what is wrong.
public enum MARCXMLReader {
    public struct Item: Sendable {
        public var line: Int
        public var result: Result<MARCRecord, MARCError>
    }

    /// The first record of a MARCXML text that holds one (a record kept with a title), nil when none reads.
    public static func firstRecord(_ text: String) -> MARCRecord? {
        read(Data(text.utf8)).records.first.flatMap { try? $0.result.get() }
    }

    public static func read(_ data: Data) -> (records: [Item], failure: MARCError?) {
        let delegate = Delegate()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = delegate
        delegate.parser = parser
        let ok = parser.parse()
        var failure: MARCError?
        if let error = delegate.error {
            failure = error
        } else if !ok {
            let why = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unreadable XML"
            failure = .xml(line: parser.lineNumber, why)
        } else if delegate.items.isEmpty {
            failure = .notMARC21("the XML holds no MARC <record> element")
        }
        return (delegate.items, failure)
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        weak var parser: XMLParser?
        var items: [Item] = []
        var line = 0
        var leader: String?
        var fields: [MARCField] = []
        var current: MARCField?
        var subfieldCode: Character?
        var text = ""
        var problem: MARCError?
        var inRecord = false
        var error: MARCError?

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            guard error == nil else { return }
            let code = (parseError as NSError).code
            error = .xml(line: parser.lineNumber, Self.describe(code))
        }

        /// libxml2's messages are not passed on; the common ones, said plainly.
        static func describe(_ code: Int) -> String {
            switch code {
            case 76: "an element is closed by a tag of another name"
            case 5, 77: "the document ends before its elements are closed"
            case 4, 73: "a tag is not closed with >"
            case 68, 39, 41: "a < or & that is not markup (write &lt; or &amp;)"
            case 9: "a character that XML does not allow"
            default: "malformed XML (libxml2 error \(code))"
            }
        }

        static func local(_ name: String) -> String {
            name.split(separator: ":").last.map(String.init) ?? name
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            switch Self.local(elementName) {
            case "record":
                inRecord = true
                line = parser.lineNumber
                leader = nil
                fields = []
                problem = nil
            case "controlfield":
                current = .control(attributes["tag"] ?? "", "")
            case "datafield":
                let tag = attributes["tag"] ?? ""
                if tag.count != 3 { problem = problem ?? .badDirectory("a datafield has the tag “\(tag)”") }
                current = .data(tag, attributes["ind1"]?.first ?? " ", attributes["ind2"]?.first ?? " ", [])
            case "subfield":
                subfieldCode = attributes["code"]?.first
            default: break
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            switch Self.local(elementName) {
            case "leader": leader = text
            case "controlfield":
                if var field = current { field.value = text; fields.append(field) }
                current = nil
            case "subfield":
                if let code = subfieldCode { current?.subfields.append(MARCSubfield(code, text)) }
                subfieldCode = nil
            case "datafield":
                if let field = current { fields.append(field) }
                current = nil
            case "record":
                guard inRecord else { break }
                inRecord = false
                if let problem {
                    items.append(Item(line: line, result: .failure(problem)))
                } else {
                    let l = leader.map { $0.count == 24 ? $0 : ($0 + String(repeating: " ", count: 24)).prefix(24).description } ?? MARCRecord.defaultLeader
                    items.append(Item(line: line, result: .success(MARCRecord(leader: l, fields: fields))))
                }
            default: break
            }
            text = ""
        }
    }
}
