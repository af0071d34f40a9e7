import Fluent
import SQLKit

/// SQLite's search index a third smaller (23.4 → 15.4 MB at 100,000 titles with three copies) and
/// quicker to write: for each word it keeps which titles have it and in which column
/// (`detail = column`), no longer where in the text. A search asks only that: every typed word
/// as a prefix, anywhere in a title's words, within one library's scope (`TitleQuery.matchClause`);
/// nothing orders by relevance or asks for words next to each other.
///
/// Such an index answers no phrase, and a quoted word the tokenizer cut in two would be one. So
/// the tokenizer now cuts where `SearchText.tokens` does, at what is not a letter, mark or digit
/// (`categories 'L* M* N* Cn'`): by default it also cut at marks, so a Devanagari or Thai word with
/// vowel signs was a phrase of its pieces. Its tables are Unicode 6.1's; `Cn` keeps a letter
/// assigned since (which the app, on a newer Unicode, keeps in its word) inside the word too.
/// The index is made again from `titles.search_text`. PostgreSQL (a generated column) is unchanged.
struct LeanTitleSearch: AsyncMigration {
    static let definition = """
        scope, search_text, tokenize = "unicode61 remove_diacritics 2 categories 'L* M* N* Cn'", prefix = '1 2 3 4', \
        content = '', contentless_delete = 1, detail = column
        """

    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await ShrinkTitleSearch.rebuild(database.sql, definition: Self.definition)
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await ShrinkTitleSearch.rebuild(database.sql, definition: ShrinkTitleSearch.columns + ", content = '', contentless_delete = 1")
    }
}
