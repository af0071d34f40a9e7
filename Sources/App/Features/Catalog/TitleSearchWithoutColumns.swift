import Fluent
import SQLKit

/// SQLite's search index smaller again: for each word it keeps only which titles have it (`detail = none`),
/// no longer in which column. A search asks only that: every typed word as a prefix, and the title's
/// library and list. Without columns, a typed prefix longer than the prefix indexes (its words' lists
/// merged as the search runs) measured slower than before, so the prefix indexes reach 6 characters
/// instead of 4 (together 19.8 → 12.8 MB at 120,000 titles, every prefix as quick or quicker: decision 065).
///
/// Such an index answers no column filter, and the library and list were asked for as `scope:` (a token
/// of their own column), so a typed word could otherwise be the start of a scope token ("l" of
/// `L<library>W0`, in every title of the library). A scope token now starts with `@`, which the tokenizer
/// keeps inside a word (`tokenchars '@'`) and the app never does (`SearchText` cuts words at anything that
/// is not a letter or digit, in titles and in queries alike): no typed word is the start of one, and a scope
/// matches only itself (`TitleQuery.matchClause`). The index is made again from `titles.search_text`.
/// PostgreSQL (a generated column) is unchanged.
struct TitleSearchWithoutColumns: AsyncMigration {
    static let definition = """
        scope, search_text, tokenize = "unicode61 remove_diacritics 2 categories 'L* M* N* Cn' tokenchars '@'", prefix = '1 2 3 4 5 6', \
        content = '', contentless_delete = 1, detail = none
        """
    /// How a scope token starts: the library's id in hex and the list (`W0`, `W1`) follow.
    static let scope = "@L"

    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await ShrinkTitleSearch.rebuild(database.sql, definition: Self.definition, scope: Self.scope)
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await ShrinkTitleSearch.rebuild(database.sql, definition: LeanTitleSearch.definition)
    }
}
