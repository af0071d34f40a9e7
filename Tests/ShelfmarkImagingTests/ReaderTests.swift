import Foundation
import ShelfmarkImaging
import Testing

@Suite struct ImageInputTests {
    @Test func emptyAndNonImagesAreRefusedWithAReason() {
        #expect(throws: ImageError.empty) { try BarcodeReader().read(Data()) }
        #expect(throws: ImageError.notAnImage) { try BarcodeReader().read(Data("hello, world".utf8)) }
    }
}
