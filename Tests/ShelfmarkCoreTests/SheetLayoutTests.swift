import Testing
@testable import ShelfmarkCore

/// The label sheets' measures: where each label is, as the makers publish them.
struct SheetLayoutTests {
    @Test func averyLabelsAreWhereTheMakersSay() {
        let letter = LabelLayout.avery5160.sheet
        #expect(letter.paper == .letter && letter.perSheet == 30)
        // 3/16″ from the left, ½″ from the top, 2¾″ across and 1″ down from one label to the next.
        #expect(letter.place(0).page == 0 && abs(letter.place(0).x - 4.7625) < 1e-9 && abs(letter.place(0).y - 12.7) < 1e-9)
        let last = letter.place(29)
        #expect(last.page == 0 && abs(last.x - (4.7625 + 2 * 69.85)) < 1e-9 && abs(last.y - (12.7 + 9 * 25.4)) < 1e-9)
        // The last label ends ½″ above the bottom of the paper, the right column 3/16″ from its edge.
        #expect(abs(last.y + letter.height - (279.4 - 12.7)) < 1e-9 && abs(last.x + letter.width - (215.9 - 4.7625)) < 1e-9)
        #expect(letter.place(30) == .init(page: 1, x: letter.place(0).x, y: letter.place(0).y))

        let a4 = LabelLayout.averyL7160.sheet
        #expect(a4.paper == .a4 && a4.perSheet == 21)
        let corner = a4.place(20)
        #expect(abs(corner.x + a4.width - (210 - 7.21)) < 0.01 && abs(corner.y + a4.height - (297 - 15.15)) < 0.01)
    }

    @Test func edgeToEdgeSheetsAreCentred() {
        let a4x24 = LabelLayout.a4x24.sheet
        #expect(a4x24.perSheet == 24 && a4x24.place(0).x == 0 && abs(a4x24.place(0).y - 0.5) < 1e-9)
        let spine = LabelLayout.spine.sheet
        #expect(spine.perSheet == 51 && abs(spine.place(50).y + spine.height - (297 - 4.85)) < 1e-9)
        let cards = CardLayout.sheet(.a4)
        #expect(cards.perSheet == 10 && abs(cards.place(0).x - 19.4) < 1e-9 && abs(cards.place(0).y - 13.5) < 1e-9)
        #expect(abs(CardLayout.sheet(.letter).place(9).x + CardLayout.width - (215.9 - 22.35)) < 1e-9)
    }

    @Test func startingPartWayAndOffsettingMoveEveryLabel() {
        let sheet = LabelLayout.averyL7160.sheet
        // Start at label 5 (second row, second column): the first label goes there, the 18th is the first of sheet 2.
        #expect(sheet.place(0, startAt: 5) == sheet.place(4))
        #expect(sheet.place(17, startAt: 5) == .init(page: 1, x: sheet.left, y: sheet.top))
        #expect(sheet.pages(count: 17, startAt: 5) == 1 && sheet.pages(count: 18, startAt: 5) == 2 && sheet.pages(count: 0) == 0)
        // Out-of-range starts are held to the sheet.
        #expect(sheet.place(0, startAt: 0) == sheet.place(0) && sheet.place(0, startAt: 99) == sheet.place(20))
        let moved = sheet.place(3, offsetX: 1.5, offsetY: -2)
        #expect(abs(moved.x - (sheet.place(3).x + 1.5)) < 1e-9 && abs(moved.y - (sheet.place(3).y - 2)) < 1e-9)
    }

    @Test func spineMarksTakeTheFamilyName() {
        #expect(SpineMark.authorLetters(["J. K. Rowling"]) == "ROW")
        #expect(SpineMark.authorLetters(["Rowling, J. K."]) == "ROW")
        #expect(SpineMark.authorLetters(["Máirtín Ó Cadhain"]) == "CAD")
        #expect(SpineMark.authorLetters(["Ó Cadhain, Máirtín"]) == "ÓCA")
        #expect(SpineMark.authorLetters(["吴承恩"]) == "吴")
        #expect(SpineMark.authorLetters([]) == nil && SpineMark.authorLetters(["  "]) == nil)
    }
}
