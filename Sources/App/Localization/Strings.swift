/// Every user-visible string of the web app, in English, German, Irish and Simplified Chinese.
/// A test checks that every key has all four, non-empty.
enum L: String, CaseIterable, Sendable {
    // Shell
    case appName, skipToContent, navCatalog, navAdd, navCheckout, navReturn, navMembers, navLoans, navMore
    case signOut, language, switchLibrary, yourLibraries
    // Setup and sign-in
    case setupTitle, setupIntro, username, password, passwordHint, yourName, libraryName, createLibrary
    case signInTitle, signIn, signInIntro
    // Catalog
    case catalog, search, searchPlaceholder, filterAll, filterFavorites, filterOnLoan, filterOverdue
    case viewList, viewGrid, available, allOut, noTitlesYet, noTitlesYetHint, noMatches, jumpTo, coverOf
    // Book detail
    case by, publisher, published, pages, languageField, isbn, copies, copyNumber, barcode, location, status
    case statusAvailable, statusOnLoan, statusLost, statusWithdrawn
    case currentLoans, dueOn, checkOut, returnBook, favorite, unfavorite, notes, saveNotes, notesSaved
    case viewOnGoogleBooks, findOnAmazon, share, deleteTitle, deleteConfirm, deleted, description, categories, rating
    // Add
    case addTitle, scanBarcode, scanHint, typeISBN, lookUp, orEnterManually, enterManually, title, subtitle
    case authorsField, authorsHint, publishedDate, pageCount, coverURL, copiesField, confirmAdd, added
    case lookupFound, lookupNotFound, alreadyInLibrary, addMoreCopies, copiesAdded, takePhoto
    // Members
    case members, addMember, cardID, firstName, lastName, grade, email, memberNotes, noMembers, save
    case memberAdded, searchMembers, loanHistory, noLoans
    // Circulation
    case checkOutTitle, memberCard, memberCardHint, bookField, bookHint, dueDate, dueIn, confirmCheckout
    case checkedOut, returnTitle, copyBarcode, copyBarcodeHint, confirmReturn, returned, borrowedBy
    case checkedOutOn, loansTitle, overdue, onTime, member
    // Wishlist
    case wishlist, wishlistEmpty, searchProviders, searchProvidersHint, addToWishlist, addedToWishlist, acquire, acquired
    case shareText, removeFromWishlist, removed, providerResults
    // More: dashboard, activity, settings, staff, libraries
    case more, dashboard, activity, settings, staff, titlesStat, copiesStat, onLoanStat, overdueStat, membersStat, wishlistStat
    case recentActivity, lastAdded, allTypes, loanPeriod, maxRenewals, publicCatalog, settingsSaved, addStaff, role
    case roleOwner, roleLibrarian, roleVolunteer, roleViewer, staffAdded, newLibrary, libraryCreated, editTitle, titleSaved
    case editMember, deleteMember, deleteMemberConfirm, memberDeleted, memberSaved, chooseBook
    // Activity types (D1)
    case actCheckout, actReturn, actRenew, actAddBook, actEditBook, actAddCopy, actRemoveCopy, actDeleteBook, actAddWishlist
    case actFulfillWishlist, actDeleteWishlist, actImport, actAddMember, actEditMember, actDeleteMember, actAddCategory
    case actEditCategory, actDeleteCategory, actEditLibrary, actAddStaff, actRemoveStaff
    // Import & export (F1–F3)
    case importExport, importFile, importFileHint, formatField, detectFormat, existingSkip, existingCopies, importButton, importing, restoring
    case importDone, rowsRead, titlesCreated, copiesAddedLabel, skippedRows, failedRows, lineLabel, stoppedAt, exportCatalog, exportWishlist
    case recordLabel, importIntoNew, importIntoNewHint, exportHeading, exportJSON, exportMARC, exportMARCXML, enrichmentProgress, enrichmentDone
    case backupHeading, backupDownload, backupHint, restoreFile, restoreAsNew, restoreAsNewHint, restoreReplace, restoreButton, restored
    case eraseHeading, eraseConfirm, eraseButton, erased
    // Errors
    case errorTitle, notFoundTitle, notFoundText, forbiddenText, csrfText, tryAgain, backToCatalog, signInAgain
    case tooManyAttempts, tooLarge, diskFull
    case serverSettings, libraryCreation, creationStaff, creationAdmin, serverSaved, staffPasswordHint
}

/// Counted phrases, one form per plural category the language has.
enum P: String, CaseIterable, Sendable {
    case titles, titlesMoreThan, copiesAvailable, daysOverdue, loansOut, days, favoritesCount
}

extension L {
    typealias Row = (en: String, de: String, ga: String, zh: String)

    static let table: [L: Row] = [
        .appName: ("Shelfmark", "Shelfmark", "Shelfmark", "Shelfmark"),
        .skipToContent: ("Skip to content", "Zum Inhalt springen", "Léim go dtí an t-ábhar", "跳到内容"),
        .navCatalog: ("Catalog", "Katalog", "Catalóg", "书目"),
        .navAdd: ("Add", "Hinzufügen", "Cuir leis", "添加"),
        .navCheckout: ("Lend", "Verleihen", "Tabhair ar iasacht", "借出"),
        .navReturn: ("Return", "Rückgabe", "Fill", "归还"),
        .navMembers: ("Members", "Mitglieder", "Baill", "读者"),
        .navLoans: ("Loans", "Leihliste", "Iasachtaí", "借阅"),
        .navMore: ("More", "Mehr", "Tuilleadh", "更多"),
        .signOut: ("Sign out", "Abmelden", "Sínigh amach", "退出登录"),
        .language: ("Language", "Sprache", "Teanga", "语言"),
        .switchLibrary: ("Switch library", "Bibliothek wechseln", "Athraigh leabharlann", "切换图书馆"),
        .yourLibraries: ("Your libraries", "Ihre Bibliotheken", "Do leabharlanna", "你的图书馆"),

        .setupTitle: ("Welcome to Shelfmark", "Willkommen bei Shelfmark", "Fáilte go Shelfmark", "欢迎使用 Shelfmark"),
        .setupIntro: ("Create your account and your first library. You can add staff and more libraries later.",
                      "Legen Sie Ihr Konto und Ihre erste Bibliothek an. Mitarbeitende und weitere Bibliotheken können Sie später hinzufügen.",
                      "Cruthaigh do chuntas agus do chéad leabharlann. Is féidir foireann agus tuilleadh leabharlanna a chur leis níos déanaí.",
                      "创建你的账户和第一个图书馆。以后可以再添加工作人员和更多图书馆。"),
        .username: ("Username", "Benutzername", "Ainm úsáideora", "用户名"),
        .password: ("Password", "Passwort", "Pasfhocal", "密码"),
        .passwordHint: ("At least 8 characters.", "Mindestens 8 Zeichen.", "8 gcarachtar ar a laghad.", "至少 8 个字符。"),
        .yourName: ("Your name", "Ihr Name", "D'ainm", "你的名字"),
        .libraryName: ("Library name", "Name der Bibliothek", "Ainm na leabharlainne", "图书馆名称"),
        .createLibrary: ("Create library", "Bibliothek anlegen", "Cruthaigh leabharlann", "创建图书馆"),
        .signInTitle: ("Sign in", "Anmelden", "Sínigh isteach", "登录"),
        .signIn: ("Sign in", "Anmelden", "Sínigh isteach", "登录"),
        .signInIntro: ("Sign in to your library.", "Melden Sie sich bei Ihrer Bibliothek an.", "Sínigh isteach i do leabharlann.", "登录你的图书馆。"),

        .catalog: ("Catalog", "Katalog", "Catalóg", "书目"),
        .search: ("Search", "Suchen", "Cuardaigh", "搜索"),
        .searchPlaceholder: ("Title, author or ISBN", "Titel, Autor oder ISBN", "Teideal, údar nó ISBN", "书名、作者或 ISBN"),
        .filterAll: ("All", "Alle", "Gach ceann", "全部"),
        .filterFavorites: ("Favorites", "Favoriten", "Ceanáin", "收藏"),
        .filterOnLoan: ("On loan", "Ausgeliehen", "Ar iasacht", "已借出"),
        .filterOverdue: ("Overdue", "Überfällig", "Thar téarma", "逾期"),
        .viewList: ("List", "Liste", "Liosta", "列表"),
        .viewGrid: ("Covers", "Cover", "Clúdaigh", "封面"),
        .available: ("Available", "Verfügbar", "Ar fáil", "可借"),
        .allOut: ("All out", "Alle verliehen", "Iad uile amuigh", "全部借出"),
        .noTitlesYet: ("No books yet", "Noch keine Bücher", "Níl aon leabhar fós", "还没有图书"),
        .noTitlesYetHint: ("Scan a barcode or type an ISBN to add your first book.",
                           "Scannen Sie einen Barcode oder geben Sie eine ISBN ein, um Ihr erstes Buch hinzuzufügen.",
                           "Scanáil barrachód nó clóscríobh ISBN chun do chéad leabhar a chur leis.",
                           "扫描条形码或输入 ISBN 来添加第一本书。"),
        .noMatches: ("No books match “%1”.", "Keine Bücher passen zu „%1“.", "Níl aon leabhar a mheaitseálann “%1”.", "没有与“%1”匹配的图书。"),
        .jumpTo: ("Jump to letter", "Zu Buchstabe springen", "Léim go litir", "跳到字母"),
        .coverOf: ("Cover of %1", "Cover von %1", "Clúdach %1", "《%1》的封面"),

        .by: ("by %1", "von %1", "le %1", "%1 著"),
        .publisher: ("Publisher", "Verlag", "Foilsitheoir", "出版社"),
        .published: ("Published", "Erschienen", "Foilsithe", "出版日期"),
        .pages: ("Pages", "Seiten", "Leathanaigh", "页数"),
        .languageField: ("Language", "Sprache", "Teanga", "语言"),
        .isbn: ("ISBN", "ISBN", "ISBN", "ISBN"),
        .copies: ("Copies", "Exemplare", "Cóipeanna", "副本"),
        .copyNumber: ("Copy %1", "Exemplar %1", "Cóip %1", "副本 %1"),
        .barcode: ("Barcode", "Barcode", "Barrachód", "条形码"),
        .location: ("Shelf", "Regal", "Seilf", "书架"),
        .status: ("Status", "Status", "Stádas", "状态"),
        .statusAvailable: ("Available", "Verfügbar", "Ar fáil", "可借"),
        .statusOnLoan: ("On loan", "Ausgeliehen", "Ar iasacht", "已借出"),
        .statusLost: ("Lost", "Verloren", "Caillte", "遗失"),
        .statusWithdrawn: ("Withdrawn", "Ausgesondert", "Tarraingthe siar", "已下架"),
        .currentLoans: ("On loan now", "Derzeit ausgeliehen", "Ar iasacht anois", "当前借阅"),
        .dueOn: ("Due %1", "Fällig am %1", "Le tabhairt ar ais %1", "%1 到期"),
        .checkOut: ("Lend", "Verleihen", "Tabhair ar iasacht", "借出"),
        .returnBook: ("Return", "Zurückgeben", "Fill", "归还"),
        .favorite: ("Add to favorites", "Zu Favoriten", "Cuir le ceanáin", "加入收藏"),
        .unfavorite: ("Remove from favorites", "Aus Favoriten entfernen", "Bain de na ceanáin", "取消收藏"),
        .notes: ("Notes", "Notizen", "Nótaí", "备注"),
        .saveNotes: ("Save notes", "Notizen speichern", "Sábháil nótaí", "保存备注"),
        .notesSaved: ("Notes saved.", "Notizen gespeichert.", "Sábháladh na nótaí.", "备注已保存。"),
        .viewOnGoogleBooks: ("View on Google Books", "Bei Google Books ansehen", "Féach ar Google Books", "在 Google 图书上查看"),
        .findOnAmazon: ("Find on Amazon", "Bei Amazon suchen", "Aimsigh ar Amazon", "在亚马逊上查找"),
        .share: ("Share", "Teilen", "Comhroinn", "分享"),
        .deleteTitle: ("Delete book", "Buch löschen", "Scrios an leabhar", "删除图书"),
        .deleteConfirm: ("Delete “%1” and its copies? This cannot be undone.", "„%1“ und seine Exemplare löschen? Das kann nicht rückgängig gemacht werden.",
                         "An bhfuil tú cinnte gur mian leat “%1” agus a chóipeanna a scriosadh? Ní féidir é seo a chealú.", "删除《%1》及其所有副本？此操作无法撤销。"),
        .deleted: ("“%1” was deleted.", "„%1“ wurde gelöscht.", "Scriosadh “%1”.", "《%1》已删除。"),
        .description: ("Description", "Beschreibung", "Cur síos", "简介"),
        .categories: ("Categories", "Kategorien", "Catagóirí", "分类"),
        .rating: ("Rating", "Bewertung", "Rátáil", "评分"),

        .addTitle: ("Add a book", "Buch hinzufügen", "Cuir leabhar leis", "添加图书"),
        .scanBarcode: ("Scan barcode", "Barcode scannen", "Scanáil barrachód", "扫描条形码"),
        .scanHint: ("Point the camera at the barcode on the back cover.", "Richten Sie die Kamera auf den Barcode auf der Rückseite.",
                    "Dírigh an ceamara ar an mbarrachód ar an gclúdach cúil.", "将摄像头对准封底的条形码。"),
        .typeISBN: ("ISBN", "ISBN", "ISBN", "ISBN"),
        .lookUp: ("Look up", "Nachschlagen", "Cuardaigh", "查找"),
        .orEnterManually: ("No ISBN? Enter the book by hand.", "Keine ISBN? Buch von Hand erfassen.", "Gan ISBN? Cuir an leabhar isteach de láimh.", "没有 ISBN？手动录入。"),
        .enterManually: ("Enter by hand", "Von Hand erfassen", "Cuir isteach de láimh", "手动录入"),
        .title: ("Title", "Titel", "Teideal", "书名"),
        .subtitle: ("Subtitle", "Untertitel", "Fotheideal", "副标题"),
        .authorsField: ("Authors", "Autoren", "Údair", "作者"),
        .authorsHint: ("Separate several authors with commas.", "Mehrere Autoren mit Kommas trennen.", "Scar údair le camóga.", "多位作者请用逗号分隔。"),
        .publishedDate: ("Published", "Erscheinungsdatum", "Dáta foilsithe", "出版日期"),
        .pageCount: ("Pages", "Seiten", "Leathanaigh", "页数"),
        .coverURL: ("Cover image URL", "URL des Coverbilds", "URL an chlúdaigh", "封面图片网址"),
        .copiesField: ("Number of copies", "Anzahl der Exemplare", "Líon na gcóipeanna", "副本数量"),
        .confirmAdd: ("Add to catalog", "In den Katalog aufnehmen", "Cuir leis an gcatalóg", "加入书目"),
        .added: ("“%1” was added.", "„%1“ wurde hinzugefügt.", "Cuireadh “%1” leis.", "《%1》已添加。"),
        .lookupFound: ("Check the details, change anything you like, then add.", "Prüfen Sie die Angaben, ändern Sie nach Belieben und fügen Sie hinzu.",
                       "Seiceáil na sonraí, athraigh aon rud is mian leat, agus cuir leis.", "核对信息，按需修改，然后添加。"),
        .lookupNotFound: ("No details found for this ISBN. Enter them by hand.", "Zu dieser ISBN wurden keine Angaben gefunden. Bitte von Hand erfassen.",
                          "Níor aimsíodh sonraí don ISBN seo. Cuir isteach de láimh iad.", "未找到此 ISBN 的信息，请手动录入。"),
        .alreadyInLibrary: ("“%1” is already in your library.", "„%1“ ist bereits in Ihrer Bibliothek.", "Tá “%1” i do leabharlann cheana.", "《%1》已在你的图书馆中。"),
        .addMoreCopies: ("Add more copies", "Weitere Exemplare hinzufügen", "Cuir tuilleadh cóipeanna leis", "添加更多副本"),
        .copiesAdded: ("Copies added.", "Exemplare hinzugefügt.", "Cuireadh cóipeanna leis.", "副本已添加。"),
        .takePhoto: ("Or take a photo of the barcode", "Oder ein Foto des Barcodes aufnehmen", "Nó tóg grianghraf den bharrachód", "或拍一张条形码照片"),

        .members: ("Members", "Mitglieder", "Baill", "读者"),
        .addMember: ("Add member", "Mitglied hinzufügen", "Cuir ball leis", "添加读者"),
        .cardID: ("Card ID", "Ausweisnummer", "Uimhir an chárta", "借书证号"),
        .firstName: ("First name", "Vorname", "Céadainm", "名"),
        .lastName: ("Last name", "Nachname", "Sloinne", "姓"),
        .grade: ("Class or grade", "Klasse", "Rang", "班级"),
        .email: ("Email", "E-Mail", "Ríomhphost", "电子邮件"),
        .memberNotes: ("Notes", "Notizen", "Nótaí", "备注"),
        .noMembers: ("No members yet.", "Noch keine Mitglieder.", "Níl aon bhall fós.", "还没有读者。"),
        .save: ("Save", "Speichern", "Sábháil", "保存"),
        .memberAdded: ("%1 was added.", "%1 wurde hinzugefügt.", "Cuireadh %1 leis.", "已添加 %1。"),
        .searchMembers: ("Card ID or name", "Ausweisnummer oder Name", "Uimhir chárta nó ainm", "借书证号或姓名"),
        .loanHistory: ("History", "Verlauf", "Stair", "借阅历史"),
        .noLoans: ("Nothing on loan.", "Nichts ausgeliehen.", "Níl aon rud ar iasacht.", "没有借阅。"),

        .checkOutTitle: ("Lend a book", "Buch verleihen", "Tabhair leabhar ar iasacht", "借出图书"),
        .memberCard: ("Member", "Mitglied", "Ball", "读者"),
        .memberCardHint: ("Scan or type the card ID.", "Ausweisnummer scannen oder eingeben.", "Scanáil nó clóscríobh uimhir an chárta.", "扫描或输入借书证号。"),
        .bookField: ("Book", "Buch", "Leabhar", "图书"),
        .bookHint: ("Copy barcode, ISBN, or words from the title.", "Exemplar-Barcode, ISBN oder Wörter aus dem Titel.", "Barrachód na cóipe, ISBN, nó focail as an teideal.", "副本条形码、ISBN 或书名中的词。"),
        .dueDate: ("Due date", "Rückgabedatum", "Dáta dlite", "到期日"),
        .dueIn: ("In %1 days", "In %1 Tagen", "I gceann %1 lá", "%1 天后"),
        .confirmCheckout: ("Lend", "Verleihen", "Tabhair ar iasacht", "确认借出"),
        .checkedOut: ("“%1” is lent to %2 until %3.", "„%1“ ist bis %3 an %2 ausgeliehen.", "Tá “%1” ar iasacht ag %2 go dtí %3.", "《%1》已借给 %2，%3 到期。"),
        .returnTitle: ("Return a book", "Buch zurücknehmen", "Glac le leabhar ar ais", "归还图书"),
        .copyBarcode: ("Copy barcode", "Exemplar-Barcode", "Barrachód na cóipe", "副本条形码"),
        .copyBarcodeHint: ("Scan or type the barcode on the book.", "Barcode im Buch scannen oder eingeben.", "Scanáil nó clóscríobh an barrachód ar an leabhar.", "扫描或输入书上的条形码。"),
        .confirmReturn: ("Return", "Zurücknehmen", "Fill", "确认归还"),
        .returned: ("“%1” is back.", "„%1“ ist zurück.", "Tá “%1” ar ais.", "《%1》已归还。"),
        .borrowedBy: ("Borrowed by", "Ausgeliehen von", "Ar iasacht ag", "借阅人"),
        .checkedOutOn: ("Lent on", "Ausgeliehen am", "Tugtha ar iasacht ar", "借出日期"),
        .loansTitle: ("Loans", "Ausleihen", "Iasachtaí", "借阅"),
        .overdue: ("Overdue", "Überfällig", "Thar téarma", "逾期"),
        .onTime: ("On time", "Pünktlich", "In am", "按时"),
        .member: ("Member", "Mitglied", "Ball", "读者"),

        .wishlist: ("Wishlist", "Wunschliste", "Liosta mianta", "心愿单"),
        .wishlistEmpty: ("Nothing on the wishlist yet.", "Noch nichts auf der Wunschliste.", "Níl aon rud ar an liosta mianta fós.", "心愿单还是空的。"),
        .searchProviders: ("Find a book", "Buch finden", "Aimsigh leabhar", "查找图书"),
        .searchProvidersHint: ("Title, author, or both.", "Titel, Autor oder beides.", "Teideal, údar, nó an dá cheann.", "书名、作者或两者。"),
        .addToWishlist: ("Add to wishlist", "Auf die Wunschliste", "Cuir leis an liosta mianta", "加入心愿单"),
        .addedToWishlist: ("“%1” is on the wishlist.", "„%1“ steht auf der Wunschliste.", "Tá “%1” ar an liosta mianta.", "《%1》已加入心愿单。"),
        .acquire: ("Acquired", "Angeschafft", "Faighte", "已购入"),
        .acquired: ("“%1” is now in the catalog.", "„%1“ ist jetzt im Katalog.", "Tá “%1” sa chatalóg anois.", "《%1》已加入书目。"),
        .shareText: ("Check out this book: \"%1\" by %2", "Schau dir dieses Buch an: „%1“ von %2", "Féach ar an leabhar seo: “%1” le %2", "看看这本书：《%1》，作者 %2"),
        .removeFromWishlist: ("Remove", "Entfernen", "Bain", "移除"),
        .removed: ("“%1” was removed.", "„%1“ wurde entfernt.", "Baineadh “%1”.", "《%1》已移除。"),
        .providerResults: ("From Google Books and Open Library", "Von Google Books und Open Library", "Ó Google Books agus Open Library", "来自 Google 图书和 Open Library"),
        .more: ("More", "Mehr", "Tuilleadh", "更多"),
        .dashboard: ("Overview", "Übersicht", "Forbhreathnú", "概览"),
        .activity: ("Activity", "Aktivität", "Gníomhaíocht", "动态"),
        .settings: ("Settings", "Einstellungen", "Socruithe", "设置"),
        .staff: ("Staff", "Mitarbeitende", "Foireann", "工作人员"),
        .titlesStat: ("Books", "Bücher", "Leabhair", "图书"),
        .copiesStat: ("Copies", "Exemplare", "Cóipeanna", "副本"),
        .onLoanStat: ("On loan", "Ausgeliehen", "Ar iasacht", "借出中"),
        .overdueStat: ("Overdue", "Überfällig", "Thar téarma", "逾期"),
        .membersStat: ("Members", "Mitglieder", "Baill", "读者"),
        .wishlistStat: ("Wishlist", "Wunschliste", "Liosta mianta", "心愿单"),
        .recentActivity: ("Recent activity", "Letzte Aktivität", "Gníomhaíocht le déanaí", "最近动态"),
        .lastAdded: ("Newest books", "Neueste Bücher", "Na leabhair is nua", "最新图书"),
        .allTypes: ("All", "Alle", "Gach cineál", "全部"),
        .loanPeriod: ("Loan period (days)", "Leihfrist (Tage)", "Tréimhse iasachta (laethanta)", "借期（天）"),
        .maxRenewals: ("Renewals allowed", "Erlaubte Verlängerungen", "Athnuachain ceadaithe", "可续借次数"),
        .publicCatalog: ("Public catalog (without member data)", "Öffentlicher Katalog (ohne Mitgliederdaten)", "Catalóg phoiblí (gan sonraí ball)", "公开书目（不含读者信息）"),
        .settingsSaved: ("Settings saved.", "Einstellungen gespeichert.", "Sábháladh na socruithe.", "设置已保存。"),
        .addStaff: ("Add staff", "Mitarbeitende hinzufügen", "Cuir foireann leis", "添加工作人员"),
        .role: ("Role", "Rolle", "Ról", "角色"),
        .roleOwner: ("Owner", "Eigentümer", "Úinéir", "所有者"),
        .roleLibrarian: ("Librarian", "Bibliothekar", "Leabharlannaí", "图书管理员"),
        .roleVolunteer: ("Volunteer", "Ehrenamtlich", "Oibrí deonach", "志愿者"),
        .roleViewer: ("Viewer", "Nur lesen", "Breathnóir", "只读"),
        .staffAdded: ("%1 can now sign in.", "%1 kann sich jetzt anmelden.", "Is féidir le %1 síniú isteach anois.", "%1 现在可以登录了。"),
        .newLibrary: ("New library", "Neue Bibliothek", "Leabharlann nua", "新建图书馆"),
        .libraryCreated: ("Library “%1” created.", "Bibliothek „%1“ angelegt.", "Cruthaíodh an leabharlann “%1”.", "图书馆“%1”已创建。"),
        .editTitle: ("Edit", "Bearbeiten", "Cuir in eagar", "编辑"),
        .titleSaved: ("Changes saved.", "Änderungen gespeichert.", "Sábháladh na hathruithe.", "更改已保存。"),
        .editMember: ("Edit member", "Mitglied bearbeiten", "Cuir ball in eagar", "编辑读者"),
        .deleteMember: ("Delete member", "Mitglied löschen", "Scrios ball", "删除读者"),
        .deleteMemberConfirm: ("Delete %1? Books still on loan are returned; the history is kept.", "%1 löschen? Noch ausgeliehene Bücher werden zurückgebucht; der Verlauf bleibt erhalten.",
                               "An bhfuil tú cinnte gur mian leat %1 a scriosadh? Filltear leabhair atá fós ar iasacht; coinnítear an stair.",
                               "删除 %1？仍在借阅的图书将被归还，借阅历史会保留。"),
        .memberDeleted: ("%1 was deleted.", "%1 wurde gelöscht.", "Scriosadh %1.", "%1 已删除。"),
        .memberSaved: ("Member saved.", "Mitglied gespeichert.", "Sábháladh an ball.", "读者信息已保存。"),
        .chooseBook: ("Which book?", "Welches Buch?", "Cén leabhar?", "哪一本书？"),

        .actCheckout: ("Lent", "Verliehen", "Tugtha ar iasacht", "借出"),
        .actReturn: ("Returned", "Zurückgegeben", "Fillte", "归还"),
        .actRenew: ("Renewed", "Verlängert", "Athnuaite", "续借"),
        .actAddBook: ("Book added", "Buch hinzugefügt", "Leabhar curtha leis", "新增图书"),
        .actEditBook: ("Book edited", "Buch bearbeitet", "Leabhar curtha in eagar", "编辑图书"),
        .actAddCopy: ("Copies added", "Exemplare hinzugefügt", "Cóipeanna curtha leis", "新增副本"),
        .actRemoveCopy: ("Copy removed", "Exemplar entfernt", "Cóip bainte", "移除副本"),
        .actDeleteBook: ("Book deleted", "Buch gelöscht", "Leabhar scriosta", "删除图书"),
        .actAddWishlist: ("Wished for", "Gewünscht", "Ar an liosta mianta", "加入心愿单"),
        .actFulfillWishlist: ("Wish acquired", "Wunsch angeschafft", "Mian faighte", "心愿已购入"),
        .actDeleteWishlist: ("Wish removed", "Wunsch entfernt", "Mian bainte", "移除心愿"),
        .actImport: ("Imported", "Importiert", "Iompórtáilte", "导入"),
        .actAddMember: ("Member added", "Mitglied hinzugefügt", "Ball curtha leis", "新增读者"),
        .actEditMember: ("Member edited", "Mitglied bearbeitet", "Ball curtha in eagar", "编辑读者"),
        .actDeleteMember: ("Member deleted", "Mitglied gelöscht", "Ball scriosta", "删除读者"),
        .actAddCategory: ("Category added", "Kategorie hinzugefügt", "Catagóir curtha leis", "新增分类"),
        .actEditCategory: ("Category renamed", "Kategorie umbenannt", "Catagóir athainmnithe", "重命名分类"),
        .actDeleteCategory: ("Category deleted", "Kategorie gelöscht", "Catagóir scriosta", "删除分类"),
        .actEditLibrary: ("Settings changed", "Einstellungen geändert", "Socruithe athraithe", "更改设置"),
        .actAddStaff: ("Staff added", "Mitarbeitende hinzugefügt", "Foireann curtha leis", "新增工作人员"),
        .actRemoveStaff: ("Staff removed", "Mitarbeitende entfernt", "Foireann bainte", "移除工作人员"),

        .importExport: ("Import & export", "Import & Export", "Iompórtáil & easpórtáil", "导入与导出"),
        .importFile: ("File to import", "Zu importierende Datei", "Comhad le hiompórtáil", "要导入的文件"),
        .importFileHint: ("A Shelfmark CSV, a Goodreads, LibraryThing, StoryGraph, Libib or Calibre export, MARC 21 or MARCXML, or a list of ISBNs.",
                          "Eine Shelfmark-CSV, ein Export aus Goodreads, LibraryThing, StoryGraph, Libib oder Calibre, MARC 21 oder MARCXML oder eine ISBN-Liste.",
                          "CSV Shelfmark, easpórtáil ó Goodreads, LibraryThing, StoryGraph, Libib nó Calibre, MARC 21 nó MARCXML, nó liosta ISBNanna.",
                          "Shelfmark CSV、Goodreads/LibraryThing/StoryGraph/Libib/Calibre 导出文件、MARC 21 或 MARCXML，或 ISBN 列表。"),
        .formatField: ("Format", "Format", "Formáid", "格式"),
        .detectFormat: ("Recognise automatically", "Automatisch erkennen", "Aithin go huathoibríoch", "自动识别"),
        .existingSkip: ("Skip books already in the library", "Vorhandene Bücher überspringen", "Scipeáil leabhair atá sa leabharlann cheana", "跳过馆内已有的图书"),
        .existingCopies: ("Add their copies to books already in the library", "Exemplare zu vorhandenen Büchern hinzufügen",
                          "Cuir a gcóipeanna le leabhair atá sa leabharlann cheana", "为馆内已有的图书添加副本"),
        .importButton: ("Import", "Importieren", "Iompórtáil", "导入"),
        .importing: ("Importing… a large file takes a few seconds", "Wird importiert … eine große Datei braucht einige Sekunden",
                     "Á iompórtáil… tógann comhad mór cúpla soicind", "正在导入……大文件需要几秒钟"),
        .restoring: ("Restoring…", "Wird wiederhergestellt …", "Á athchóiriú…", "正在恢复……"),
        .importDone: ("Import finished", "Import abgeschlossen", "Iompórtáil críochnaithe", "导入完成"),
        .rowsRead: ("Rows read", "Gelesene Zeilen", "Rónna léite", "读取行数"),
        .titlesCreated: ("Books added", "Hinzugefügte Bücher", "Leabhair curtha leis", "新增图书"),
        .copiesAddedLabel: ("Copies added", "Hinzugefügte Exemplare", "Cóipeanna curtha leis", "新增副本"),
        .skippedRows: ("Skipped", "Übersprungen", "Scipeáilte", "跳过"),
        .failedRows: ("Not imported", "Nicht importiert", "Níor iompórtáladh", "未导入"),
        .lineLabel: ("Line %1", "Zeile %1", "Líne %1", "第 %1 行"),
        .stoppedAt: ("Reading stopped: %1", "Lesen abgebrochen: %1", "Stopadh an léamh: %1", "读取中止：%1"),
        .exportCatalog: ("Download the catalog (CSV)", "Katalog herunterladen (CSV)", "Íoslódáil an catalóg (CSV)", "下载书目（CSV）"),
        .exportWishlist: ("Download the wishlist (CSV)", "Wunschliste herunterladen (CSV)", "Íoslódáil an liosta mianta (CSV)", "下载心愿单（CSV）"),
        .recordLabel: ("Record %1", "Datensatz %1", "Taifead %1", "第 %1 条记录"),
        .importIntoNew: ("Into a new library named", "In eine neue Bibliothek namens", "Isteach i leabharlann nua darb ainm", "导入到新图书馆，名称"),
        .importIntoNewHint: ("Leave empty to import into this library.", "Leer lassen, um in diese Bibliothek zu importieren.",
                             "Fág folamh le hiompórtáil isteach sa leabharlann seo.", "留空则导入到本图书馆。"),
        .exportHeading: ("Export", "Export", "Easpórtáil", "导出"),
        .exportJSON: ("The whole library (JSON)", "Die ganze Bibliothek (JSON)", "An leabharlann ar fad (JSON)", "整个图书馆（JSON）"),
        .exportMARC: ("The catalog as MARC 21", "Katalog als MARC 21", "An catalóg mar MARC 21", "书目（MARC 21）"),
        .exportMARCXML: ("The catalog as MARCXML", "Katalog als MARCXML", "An catalóg mar MARCXML", "书目（MARCXML）"),
        .enrichmentProgress: ("Covers and details are being added: %1 books waiting, %2 done.",
                              "Cover und Angaben werden ergänzt: %1 Bücher warten, %2 fertig.",
                              "Tá clúdaigh agus sonraí á gcur leis: %1 leabhar ag fanacht, %2 déanta.",
                              "正在补充封面和详细信息：%1 本等待中，%2 本已完成。"),
        .enrichmentDone: ("Covers and details: all %1 books done.", "Cover und Angaben: alle %1 Bücher fertig.",
                          "Clúdaigh agus sonraí: gach ceann de na %1 leabhar déanta.", "封面和详细信息：%1 本全部完成。"),
        .backupHeading: ("Backup", "Sicherung", "Cúltaca", "备份"),
        .backupDownload: ("Download a backup", "Sicherung herunterladen", "Íoslódáil cúltaca", "下载备份"),
        .backupHint: ("One file with everything: books, covers, copies, members, loans and activity.",
                      "Eine Datei mit allem: Bücher, Cover, Exemplare, Mitglieder, Ausleihen und Aktivität.",
                      "Comhad amháin leis an iomlán: leabhair, clúdaigh, cóipeanna, baill, iasachtaí agus gníomhaíocht.",
                      "一个文件包含全部内容：图书、封面、副本、读者、借阅和动态。"),
        .restoreFile: ("Backup file", "Sicherungsdatei", "Comhad cúltaca", "备份文件"),
        .restoreAsNew: ("Restore as a new library named", "Als neue Bibliothek wiederherstellen namens", "Athchóirigh mar leabharlann nua darb ainm", "恢复为新图书馆，名称"),
        .restoreAsNewHint: ("Empty: the name in the backup.", "Leer: der Name aus der Sicherung.", "Folamh: an t-ainm sa chúltaca.", "留空：使用备份中的名称。"),
        .restoreReplace: ("Instead, replace everything in “%1” with the backup", "Stattdessen alles in „%1“ durch die Sicherung ersetzen",
                          "Ina áit sin, cuir an cúltaca in ionad gach rud in “%1”", "改为用备份替换“%1”中的全部内容"),
        .restoreButton: ("Restore", "Wiederherstellen", "Athchóirigh", "恢复"),
        .restored: ("Restored “%1”.", "„%1“ wiederhergestellt.", "Athchóiríodh “%1”.", "已恢复“%1”。"),
        .eraseHeading: ("Delete all data", "Alle Daten löschen", "Scrios na sonraí go léir", "删除全部数据"),
        .eraseConfirm: ("Yes, delete every book, copy, member, loan and activity of “%1”. Settings and staff stay.",
                        "Ja, alle Bücher, Exemplare, Mitglieder, Ausleihen und Aktivitäten von „%1“ löschen. Einstellungen und Mitarbeitende bleiben.",
                        "Sea, scrios gach leabhar, cóip, ball, iasacht agus gníomhaíocht de “%1”. Fanann na socruithe agus an fhoireann.",
                        "是的，删除“%1”的所有图书、副本、读者、借阅和动态。设置和工作人员保留。"),
        .eraseButton: ("Delete all data", "Alle Daten löschen", "Scrios na sonraí go léir", "删除全部数据"),
        .erased: ("All of the library's data was deleted.", "Alle Daten der Bibliothek wurden gelöscht.", "Scriosadh sonraí uile na leabharlainne.", "图书馆的全部数据已删除。"),

        .errorTitle: ("Something went wrong", "Etwas ist schiefgelaufen", "Chuaigh rud éigin amú", "出错了"),
        .notFoundTitle: ("Not found", "Nicht gefunden", "Níor aimsíodh é", "未找到"),
        .notFoundText: ("This page does not exist, or you have no access to it.", "Diese Seite gibt es nicht, oder Sie haben keinen Zugriff darauf.",
                        "Níl an leathanach seo ann, nó níl rochtain agat air.", "此页面不存在，或你无权访问。"),
        .forbiddenText: ("Your role in this library does not allow this. Ask the library's owner.",
                         "Ihre Rolle in dieser Bibliothek erlaubt das nicht. Fragen Sie die Eigentümerin oder den Eigentümer der Bibliothek.",
                         "Ní cheadaíonn do ról sa leabharlann seo é seo. Iarr ar úinéir na leabharlainne.",
                         "你在此图书馆的角色不允许此操作。请联系图书馆所有者。"),
        .tooManyAttempts: ("Too many wrong passwords. Wait a few minutes, then try again.",
                           "Zu viele falsche Passwörter. Warten Sie ein paar Minuten und versuchen Sie es dann erneut.",
                           "An iomarca pasfhocal mícheart. Fan cúpla nóiméad, ansin bain triail eile as.",
                           "密码错误次数过多。请等几分钟后再试。"),
        .diskFull: ("The server's disk is full, so nothing was saved. Ask whoever runs the server to free some space; Shelfmark carries on by itself as soon as there is room.",
                    "Der Datenträger des Servers ist voll, daher wurde nichts gespeichert. Bitten Sie die Person, die den Server betreut, Platz zu schaffen; Shelfmark arbeitet dann von selbst weiter.",
                    "Tá diosca an fhreastalaí lán, mar sin níor sábháladh aon rud. Iarr ar an duine a ritheann an freastalaí spás a shaoradh; leanfaidh Shelfmark ar aghaidh nuair a bheidh spás ann.",
                    "服务器磁盘已满，未保存任何内容。请联系服务器管理员释放空间；有空间后 Shelfmark 会自动恢复。"),
        .serverSettings: ("This server", "Dieser Server", "An freastalaí seo", "本服务器"),
        .libraryCreation: ("Who may create libraries", "Wer Bibliotheken anlegen darf", "Cé a fhéadfaidh leabharlanna a chruthú", "谁可以创建图书馆"),
        .creationStaff: ("Librarians and owners of any library", "Bibliothekarinnen, Bibliothekare und Eigentümer jeder Bibliothek",
                         "Leabharlannaithe agus úinéirí aon leabharlainne", "任何图书馆的馆员和所有者"),
        .creationAdmin: ("Only me (the server's administrator)", "Nur ich (Administrator des Servers)", "Mise amháin (riarthóir an fhreastalaí)", "仅我（服务器管理员）"),
        .serverSaved: ("The server's settings are saved.", "Die Einstellungen des Servers sind gespeichert.", "Sábháladh socruithe an fhreastalaí.", "服务器设置已保存。"),
        .staffPasswordHint: ("A new account: choose a password of at least 8 characters. An existing account: its owner types their own password.",
                             "Neues Konto: ein Passwort mit mindestens 8 Zeichen wählen. Bestehendes Konto: die Person gibt ihr eigenes Passwort ein.",
                             "Cuntas nua: roghnaigh pasfhocal 8 gcarachtar ar a laghad. Cuntas atá ann: clóscríobhann a úinéir a p(h)asfhocal féin.",
                             "新账户：设置至少 8 个字符的密码。已有账户：由账户本人输入自己的密码。"),
        .tooLarge: ("The file is too large for this form.", "Die Datei ist für dieses Formular zu groß.",
                    "Tá an comhad rómhór don fhoirm seo.", "文件太大，无法通过此表单上传。"),
        .csrfText: ("The form was out of date. It has been reloaded: please send it again.",
                    "Das Formular war veraltet. Es wurde neu geladen: bitte erneut absenden.",
                    "Bhí an fhoirm as dáta. Athlódáladh í: seol arís í, le do thoil.",
                    "表单已过期，已重新加载，请再次提交。"),
        .tryAgain: ("Please try again.", "Bitte versuchen Sie es erneut.", "Bain triail eile as, le do thoil.", "请重试。"),
        .backToCatalog: ("Back to the catalog", "Zurück zum Katalog", "Ar ais go dtí an catalóg", "返回书目"),
        .signInAgain: ("Please sign in.", "Bitte melden Sie sich an.", "Sínigh isteach, le do thoil.", "请登录。"),
    ]
}

extension P {
    static let table: [P: [Lang: [PluralCategory: String]]] = [
        .titles: [
            .en: [.one: "%d book", .other: "%d books"],
            .de: [.one: "%d Buch", .other: "%d Bücher"],
            .ga: [.one: "%d leabhar", .two: "%d leabhar", .few: "%d leabhar", .many: "%d leabhar", .other: "%d leabhar"],
            .zh: [.other: "%d 本书"],
        ],
        // A search with more matches than are sorted A–Z (TitleQuery.sortedSearchLimit): newest first.
        .titlesMoreThan: [
            .en: [.one: "More than %d book, newest first", .other: "More than %d books, newest first"],
            .de: [.one: "Mehr als %d Buch, neueste zuerst", .other: "Mehr als %d Bücher, neueste zuerst"],
            .ga: [.one: "Níos mó ná %d leabhar, an ceann is nuaí ar dtús", .two: "Níos mó ná %d leabhar, an ceann is nuaí ar dtús",
                  .few: "Níos mó ná %d leabhar, an ceann is nuaí ar dtús", .many: "Níos mó ná %d leabhar, an ceann is nuaí ar dtús",
                  .other: "Níos mó ná %d leabhar, an ceann is nuaí ar dtús"],
            .zh: [.other: "超过 %d 本书，最新的在前"],
        ],
        .copiesAvailable: [
            .en: [.one: "%d copy available", .other: "%d copies available"],
            .de: [.one: "%d Exemplar verfügbar", .other: "%d Exemplare verfügbar"],
            .ga: [.one: "%d chóip ar fáil", .two: "%d chóip ar fáil", .few: "%d chóip ar fáil", .many: "%d gcóip ar fáil", .other: "%d cóip ar fáil"],
            .zh: [.other: "%d 本可借"],
        ],
        .daysOverdue: [
            .en: [.one: "%d day overdue", .other: "%d days overdue"],
            .de: [.one: "%d Tag überfällig", .other: "%d Tage überfällig"],
            .ga: [.one: "%d lá thar téarma", .two: "%d lá thar téarma", .few: "%d lá thar téarma", .many: "%d lá thar téarma", .other: "%d lá thar téarma"],
            .zh: [.other: "逾期 %d 天"],
        ],
        .loansOut: [
            .en: [.one: "%d book on loan", .other: "%d books on loan"],
            .de: [.one: "%d Buch ausgeliehen", .other: "%d Bücher ausgeliehen"],
            .ga: [.one: "%d leabhar ar iasacht", .two: "%d leabhar ar iasacht", .few: "%d leabhar ar iasacht", .many: "%d leabhar ar iasacht", .other: "%d leabhar ar iasacht"],
            .zh: [.other: "借出 %d 本"],
        ],
        .days: [
            .en: [.one: "%d day", .other: "%d days"],
            .de: [.one: "%d Tag", .other: "%d Tage"],
            .ga: [.one: "%d lá", .two: "%d lá", .few: "%d lá", .many: "%d lá", .other: "%d lá"],
            .zh: [.other: "%d 天"],
        ],
        .favoritesCount: [
            .en: [.one: "Favorites (%d)", .other: "Favorites (%d)"],
            .de: [.one: "Favoriten (%d)", .other: "Favoriten (%d)"],
            .ga: [.one: "Ceanáin (%d)", .two: "Ceanáin (%d)", .few: "Ceanáin (%d)", .many: "Ceanáin (%d)", .other: "Ceanáin (%d)"],
            .zh: [.other: "收藏（%d）"],
        ],
    ]
}
