import Foundation
import ShelfmarkCore
import Testing

/// What a late return costs, decided without a database.
@Suite struct FinePolicyTests {
    @Test func moneyPerDayAfterGraceCappedPerLoan() {
        let policy = FinePolicy(mode: .money, perDay: 25, graceDays: 2, cap: 300)
        #expect(policy.charge(overdue: 0) == 0)
        #expect(policy.charge(overdue: 2) == 0)
        #expect(policy.charge(overdue: 3) == 25)
        #expect(policy.charge(overdue: 10) == 200)
        #expect(policy.charge(overdue: 400) == 300)
        #expect(FinePolicy(mode: .money, perDay: 1_000_000).charge(overdue: Int.max) == Int.max)
        #expect(policy.suspension(overdue: 10) == 0)
        #expect(FinePolicy(mode: .off, perDay: 25).charge(overdue: 10) == 0)
    }

    @Test func suspensionDaysInsteadOfMoney() {
        let policy = FinePolicy(mode: .suspension, perDay: 25, graceDays: 1, suspensionDaysPerDay: 2)
        #expect(policy.charge(overdue: 5) == 0)
        #expect(policy.suspension(overdue: 1) == 0)
        #expect(policy.suspension(overdue: 4) == 6)
        #expect(policy.suspension(overdue: 100_000) == 3_650)
    }

    @Test func theLimitBlocksAtOrAboveIt() {
        #expect(!FinePolicy().blocks(balance: 1_000_000))
        let policy = FinePolicy(blockAt: 500)
        #expect(!policy.blocks(balance: 499))
        #expect(policy.blocks(balance: 500))
        #expect(FinePolicy(blockAt: 1).blocks(balance: 1))
    }

    @Test func moneyAsTyped() {
        #expect(MoneyText.cents("2") == 200)
        #expect(MoneyText.cents("2.5") == 250)
        #expect(MoneyText.cents("2,50") == 250)
        #expect(MoneyText.cents(" 0.05 ") == 5)
        #expect(MoneyText.cents(",5") == 50)
        for bad in ["", "-1", "1.234", "1,2,3", "abc", "1e3", "2.", "１２", "9999999999"] {
            #expect(MoneyText.cents(bad) == nil, "\(bad)")
        }
        #expect(MoneyText.plain(250) == "2.50")
        #expect(MoneyText.plain(5) == "0.05")
        #expect(FinePolicy.isCurrencyCode("EUR") && FinePolicy.isCurrencyCode("USD") && !FinePolicy.isCurrencyCode("EURO"))
    }
}
