import Foundation
@testable import ShelfmarkCore
import Testing

/// The pure rules behind the SSRF, open-redirect and cover-URL defences.
@Suite struct SecurityRulesTests {
    @Test func onlyPublicAddressesArePublic() throws {
        let refused = ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1",
                       "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.5", "198.18.0.1",
                       "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
                       "64:ff9b::a9fe:a9fe", "2002:7f00:1::1", "2001:db8::1", "[::1]", "fe80::1%eth0"]
        for text in refused {
            let bytes = try #require(AddressPolicy.parse(text), "\(text) did not parse")
            #expect(!AddressPolicy.isPublic(bytes), "\(text) counted as public")
        }
        for text in ["8.8.8.8", "151.101.1.69", "172.32.0.1", "2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"] {
            let bytes = try #require(AddressPolicy.parse(text), "\(text) did not parse")
            #expect(AddressPolicy.isPublic(bytes), "\(text) counted as internal")
        }
        #expect(AddressPolicy.parse("example.org") == nil)
        #expect(AddressPolicy.parse("1.2.3") == nil)
        #expect(AddressPolicy.parse("1:2:3:4:5:6:7:8:9") == nil)
        #expect(!AddressPolicy.isPublic([1, 2, 3]))
    }

    @Test func afterSignInOnlyPathsOfThisServer() {
        for good in ["/", "/libraries/abc/catalog?q=momo", "/a//b"] { #expect(LocalPath.validate(good) == good) }
        for bad in ["//evil.example", "/\\evil.example", "/\t/evil.example", "/%09/evil.example", "/%2F/evil.example", "/%5cevil",
                    "https://evil.example", "evil", "", " /x", "/\n/evil", "/\u{85}/x", "\\\\evil"] {
            #expect(LocalPath.validate(bad) == nil, "\(bad.debugDescription) was accepted")
        }
    }

    @Test func coverURLsAreHTTPOrStoredCovers() throws {
        #expect(try CoverURL.validate("  https://covers.openlibrary.org/b/id/1-L.jpg ") == "https://covers.openlibrary.org/b/id/1-L.jpg")
        #expect(try CoverURL.validate("HTTP://example.org/a.png") == "HTTP://example.org/a.png")
        #expect(try CoverURL.validate("/api/v1/covers/0e5b7a4c-8d0a-4f5e-9b1a-2f3c4d5e6f70") != nil)
        #expect(try CoverURL.validate("") == nil)
        #expect(try CoverURL.validate(nil) == nil)
        for bad in ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:image/svg+xml,<svg onload=alert(1)>", "file:///etc/passwd",
                    "//evil.example/x.png", "/api/v1/covers/../../login", "http://", "https://a b/c.png", "http://x/\"onerror=alert(1)"] {
            #expect(throws: CoverURL.Problem.self, "\(bad) was accepted") { try CoverURL.validate(bad) }
        }
        #expect(throws: CoverURL.Problem.tooLong) { try CoverURL.validate("https://example.org/" + String(repeating: "a", count: 2_000)) }
    }
}

@Suite struct CSVInjectionTests {
    @Test func cellsThatLookLikeFormulasAreWrittenAsText() throws {
        #expect(CSVWriter.field("=HYPERLINK(\"http://evil\",\"x\")") == "\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\"")
        #expect(CSVWriter.field("+1") == "\"'+1\"")
        #expect(CSVWriter.field("-2+3") == "\"'-2+3\"")
        #expect(CSVWriter.field("@SUM(A1)") == "\"'@SUM(A1)\"")
        #expect(CSVWriter.field("\tcmd") == "\"'\tcmd\"")
        #expect(CSVWriter.field("Momo") == "Momo")
        #expect(CSVWriter.field("a-b") == "a-b")
        // Our own import reads them back as they were.
        var reader = CSVReader("Title,Author\r\n" + CSVWriter.line(["=1+2", "@me"]))
        let header = reader.next()!
        let mapper = try #require(try? ImportMapper(format: .generic, header: header.fields))
        let record = try? mapper.record(reader.next()!)
        #expect(record?.title == "=1+2")
    }
}

@Suite struct ImportReportQuoteTests {
    @Test func aRejectedValueIsQuotedUpTo200Characters() {
        let huge = String(repeating: "x", count: 5_000) + "\nnext"
        let text = ImportMapper.RowError.invalid(column: "ISBN", value: huge, reason: .notWholeNumber).description
        #expect(text.count < 250, "\(text.count)")
        #expect(text.contains("…"))
        #expect(ImportMapper.RowError.invalid(column: "ISBN", value: "12", reason: .notWholeNumber).description == "“ISBN” is “12”: not a whole number ≥ 0")
    }
}

@Suite struct MultipartCheckTests {
    @Test func headerNamesMustBeASCII() {
        let b = "8efb2279b4a4a75422550d2f31e6fbcf"
        let crash = Array("--\(b)\r\n".utf8) + [0xC3, 0xBA] + Array("--\(b)--\r\n".utf8)
        #expect(!MultipartCheck.headerNamesAreASCII(crash, boundary: b))
        let good = Array("--\(b)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"Bücher.csv\"\r\n\r\nTitel,Autor\r\nÄrger,Ü\r\n--\(b)--\r\n".utf8)
        #expect(MultipartCheck.headerNamesAreASCII(good, boundary: b))
        let badSecondHeader = Array("--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\nX-Ü: 1\r\n\r\nv\r\n--\(b)--\r\n".utf8)
        #expect(!MultipartCheck.headerNamesAreASCII(badSecondHeader, boundary: b))
        let secondPart = Array("--\(b)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--\(b)\r\n".utf8) + [0xFF] + Array(": x\r\n\r\n\r\n--\(b)--".utf8)
        #expect(!MultipartCheck.headerNamesAreASCII(secondPart, boundary: b))
        #expect(MultipartCheck.headerNamesAreASCII(Array("--\(b)--\r\n".utf8), boundary: b))
        #expect(!MultipartCheck.headerNamesAreASCII(Array("x".utf8), boundary: ""))
    }
}
