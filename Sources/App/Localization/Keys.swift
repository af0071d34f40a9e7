/// The key of every user-visible string of the web app. Each case is a `msgctxt` in the translation
/// files (`Translations/<language>.po`, English in `en.po` the source); a test checks that the cases
/// and the English file name the same keys, and that every language has every key.
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
    case cameraNeedsSecure, stopCamera, noCodeInPhoto, appTagline, offlineTitle, offlineBody, offlineRetry
    case phoneHeading, phoneHelp, phoneCertificate, phoneFingerprint, errSetupOnThisComputer
    case nfcWrite, nfcHold, nfcWritten, nfcFailed, nfcRead
    case authorsField, authorsHint, publishedDate, pageCount, coverURL, copiesField, confirmAdd, added
    case lookupFound, lookupNotFound, alreadyInLibrary, addMoreCopies, copiesAdded, takePhoto
    // Members
    case members, addMember, cardID, firstName, lastName, grade, email, memberNotes, noMembers, save
    case memberAdded, searchMembers, loanHistory, noLoans
    // Circulation
    case checkOutTitle, memberCard, memberCardHint, bookField, bookHint, dueDate, orChooseADay, dueIn, confirmCheckout
    case checkedOut, returnTitle, copyBarcode, copyBarcodeHint, confirmReturn, returned, borrowedBy
    case checkedOutOn, loansTitle, overdue, onTime, member
    // Wishlist
    case wishlist, wishlistEmpty, searchProviders, searchProvidersHint, addToWishlist, addedToWishlist, acquire, acquired
    case shareText, removeFromWishlist, removed, providerResults
    // More: dashboard, activity, settings, staff, libraries
    case more, dashboard, activity, settings, staff, titlesStat, copiesStat, onLoanStat, overdueStat, membersStat, wishlistStat
    case recentActivity, lastAdded, allTypes, loanPeriod, maxRenewals, renewalDaysField, renewalDaysHint, renewWindowField, renewWindowHint, holdPickupField, maxHoldsField, publicCatalog, settingsSaved, addStaff, role
    case roleOwner, roleLibrarian, roleVolunteer, roleViewer, staffAdded, newLibrary, libraryCreated, editTitle, titleSaved
    case editMember, deleteMember, deleteMemberConfirm, memberDeleted, memberSaved, chooseBook
    // Activity types
    case actCheckout, actReturn, actRenew, actHoldPlaced, actHoldCancelled, actHoldExpired, actHoldFulfilled, actAddBook, actEditBook, actAddCopy, actRemoveCopy, actDeleteBook, actAddWishlist
    case actFulfillWishlist, actDeleteWishlist, actImport, actAddMember, actEditMember, actDeleteMember, actAddCategory
    case actEditCategory, actDeleteCategory, actEditLibrary, actAddStaff, actRemoveStaff
    // Import & export
    case importExport, importFile, importFileHint, formatField, detectFormat, existingSkip, existingCopies, importButton, importing, restoring
    case importDone, rowsRead, titlesCreated, copiesAddedLabel, skippedRows, failedRows, lineLabel, stoppedAt, exportCatalog, exportWishlist
    case recordLabel, importIntoNew, importIntoNewHint, exportHeading, exportJSON, exportMARC, exportMARCXML, enrichmentProgress, enrichmentDone
    case backupHeading, backupDownload, backupHint, restoreFile, restoreAsNew, restoreAsNewHint, restoreReplace, restoreButton, restored, restoreLeftOut
    case eraseHeading, eraseConfirm, eraseButton, erased
    // Errors
    case errorTitle, notFoundTitle, notFoundText, forbiddenText, csrfText, tryAgain, backToCatalog, signInAgain
    case tooManyAttempts, tooLarge, diskFull
    case serverSettings, libraryCreation, creationStaff, creationAdmin, serverSaved, staffPasswordHint
    // Refusals (domain errors), with their values
    case errNoCopyAvailable, errMemberNotFound, errWishlistItem, errAlreadyReturned, errDueDatePast, errLoanPeriod
    case errCopiesBelowOnLoan, errTitleHasLoans, errCopyOnLoan, errRenewalLimit, errRenewalTooEarly, errRenewalWaitedFor, errHoldNotFound, errHoldEnded, errHoldExists, errHoldBorrowing, errHoldQueueFull, errHeldForOther, errBadCredentials, errCreationRestricted
    case errSyncRefetch, errSyncCursor, errSyncNothingToEdit
    case offlineLendingTitle, offlineLendingIntro, offlineFindBook, offlineUpToDate, offlineWaiting, offlineSending, offlineCopying, offlineLent, offlineReturned
    case offlineNoCard, offlineNoCopy, offlineAlreadyOut, offlineNotOut, offlineWaitingList, offlineAttention, offlineConflictHelp, offlineDismiss, offlineSyncNow, offlineOnShelf, offlineRenewed
    case errCreationAdminOnly, errBadBackup, errCopyNotAvailable
    case importRunning, importProgress, importAnother, openLibrary, importFailed, restoreFailed, errJobRunning, errJobInterrupted
    case errISBNEmpty, errISBNCharacters, errISBNLength, errISBNChecksum, errISBNNotBook
    case errEmpty, errTooLong, errOutOfRange, errNotEmail, errNotCoverURL, errNotANumber, errBookNotFound, errNotADate, fieldName, fieldDays
    case errDuplicateCard, errDuplicateUsername, errAlreadyStaff, errNotOnLoan, errTooManyCopiesAtOnce, errDuplicateBarcode
    case errDuplicateCategory, errDuplicateISBN, errLastOwner, errCannotAddStaff
    case impMissing, impInvalid, impNotWholeNumber, impMoreThanTotal, impRating, impFieldCount, impNotISBN, impProvidersLate
    case impNotFoundAtProviders, impAlreadyInLibrary, errNoLoanForBarcode, errPhotoUnreadable, errInternal
    case fmtShelfmarkCatalog, fmtShelfmarkWishlist, fmtGoodreads, fmtLibraryThing, fmtStoryGraph, fmtLibib, fmtCalibre, fmtGeneric
    case fmtISBNList, fmtLibraryThingJSON
    // Domain errors (Support/DomainErrors.swift)
    case errTitleNotFound, errCopyNotFound, errCategoryNotFound, errWishlistNoCopies, errWishlistItemNamed, errNotWishlist
    case errLoanedByEditing, errTooManyCategories, errTooManyAuthors, errNoISBNToDraw, errMemberGone, errCardSpaces, errMemberHasLoans
    case errAlreadySetUp, errWaitSeconds, errTokenNotFound, errLibraryNotFound, errStaffNotFound, errStaffPassword, errBadUsername
    case errPasswordShort, errPasswordLong, errRoleTooLow, errServerAdminOnly, errLoanNotFound, errNoCopyWithBarcode, errSayWhichLoan
    case errMemberIDNotFound, errSayWhoBorrows, errNoTitleWithISBN, errSayWhichBook, errFileEmpty, errNoMARCRecords, errMARCXMLUnreadable
    case errNotJSON, errNotLibraryThingJSON, errCSVUnterminated, errCSVStrayQuote, errUnknownFormat, errMissingColumns, errCannotOpen
    case errNotABackup, errNewerBackup, errBackupTooLarge, errBadBackupAt, errBackupSetting, fieldNextAccession
    case errJobNotFound, errTheCover, errBackupCoverN, errCoverTooLarge, errCoverNotImage, errNotRestored, errCoverNotFound, errRating, errBackupLibraryName
    case actCopiesChanged, actLent, actReturnedOnDeletion, actStaffAs, actStaffNow, actSettings, actImported, actFavoriteOn, actFavoriteOff
    case impUnreadable, impMARCLeader, impMARCDirectory, impMARCFieldBounds, impMARCCharset, impNotMARC21, impXMLError
    // Paging and sorting
    case pagesLabel, previousPage, nextPage, firstPage, lastPage, pageOf, showingRange, sortBy, sortTitle, sortAuthor, sortNewest
    case sortBorrowed, sortName, sortCard, sortClass, pageN
    case requestedBy, priority, priorityLow, priorityNormal, priorityHigh, addWishByHand, providersUnreachable, requestedByShown
    case timeZoneField, timeZoneHint, errUnknownTimeZone
    case renew, renewedUntil, returnAll, returnedAll, renewalsUsed
    case holdsTitle, holdsReady, holdsWaiting, noHolds, holdsHint, holdPlacedReady, holdPlacedWaiting, holdSuspendedFor, holdResumedFor
    case holdMoved, holdCancelledFor, renewedAll, holdMoveUp, holdMoveDown, holdResume, holdSuspend, holdCancel, holdReadyUntil, holdSuspended
    case calendarStopped, calendarMade, calendarHeading, calendarHint, calendarStaffHint, calendarMake, calendarRemake, calendarStop
    case calendarSince, calendarAdd, calendarLinkField, calendarQR
    case calendarDue, calendarDueStaff, calendarDueDetail, calendarStaffName, calendarMemberName
    case holdWaitingSince, placeHold, memberHolds, renewAllButton, returnedHeldFor, lendWaitingNote, lendCollectsHold, lendAnyway
    case errBackupAsImport, impISBNRepaired, impASINKept, impISBNDropped, warningsHeading, asinField
    case errMemberListTooLarge, actMembersImported, importMembers, importMembersHint, exportMembers, membersImported
    case memberCards, copyLabels, cardsForClassHint, printCards, printLabels
    case errTooManyLabels, errNothingToPrint, errTooManyCards, labelSheet, layoutAvery5160, layoutAveryL7160, layoutA4x24, layoutSpine
    case startAtLabel, startAtHint, offsetAcross, offsetDown, offsetHint, copiesAddedSince, downloadPDF, showSheets, labelsAndSheets
    case impISBNNotInCatalog, levelsImportTitle, levelsImportHint, levelsImported, setLevels, levelsFile
    case narrowTitle, levelSchemeField, schemeAR, schemeLexile, schemeGuided, schemeAntolin, schemeOther, levelFrom, levelTo, narrowApply
    case narrowClear, anyLevel
    case seriesField, seriesNumberField, readingLevelField, readingLevelHint, seriesVolume, seriesMissing, seriesComplete, seriesVolumes
    case errCollectionNotFound, errCollectionNameTaken, errTooManyCollections, collectionsTitle, collectionName, saveAsCollection
    case collectionSaved, collectionDeleted, noCollections, deleteCollection, printCollectionLabels, addedWithinDays, onlyAvailable
    case cardsAndSheets, sheetPreview, paperSize, paperLetter, onlyCopiesOf, labelsPreviewNote, cardsPreviewNote
    // Printed catalog and a book's PDF
    case errLevelListTooLarge, exportCatalogCovers, errCoversTooMany, errCoversTooLarge, errCatalogTooLarge, catalogPageOf, noCategoryGroup, noLevelGroup, printedCatalog, arrangeBy, arrangeAZ, arrangeShelf, arrangeCategory, arrangeLevel, withCovers, catalogCount, catalogPreviewNote, bookPDF, onlyShelf, allShelves
    // Shelves and stocktakes
    case errShelfNotFound, errShelfNameTaken, errShelfCodeTaken, errShelfCode, errShelfNotEmpty, errTooManyShelves, errNothingWithCode, errBookWithoutCopy, errShelfScanned, errStocktakeNotFound, errStocktakeFinished, shelvesTitle, shelfName, shelfRoom, shelfCodeField, shelfCodeHint, addShelf, shelfAdded, shelfSaved, saveShelf, shelfDeleted, deleteShelf, noShelves, shelfBooks, lastStocktakeOn, neverStocktaken, putBooksHere, putBooksHint, shelvedCopy, shelvedCopyFrom, startStocktake, continueStocktake, stocktakeTitle, stocktakeScanLabel, stocktakeScanHint, stocktakeProgress, stocktakeHere, stocktakeNotScanned, stocktakeMissing, stocktakeMisplaced, stocktakeOnLoan, stocktakeUnknown, stocktakeLent, moveHere, moveAllHere, movedHere, finishStocktake, stocktakeResult, stocktakeRunning, stocktakeFinishedOn, stocktakeStarted, stocktakeDone, scanFound, scanElsewhere, scanNoPlace, scanOnLoan, scanUnknown, scanAgain, stocktakesHistory, unseenTitle, unseenIntro, unseenNone, lastSeen, neverSeen, shelfQRCodes, shelfQRHint, printShelfCode, noPlace, shelfHeading, editShelfHeading
    case errMergeIntoItself, actMerged, manageCategories, renameTo, mergeInto, rename, merge, deleteCategory, deleteCategoryHint, categoryRenamed, categoryMerged, categoryDeleted, noCategories, newCategory, categoryAdded
    case errCannotResetPassword, actPasswordReset, changeRole, removeStaff, resetPassword, newPassword, roleChanged, staffRemoved, passwordWasReset
    case errQuoteNotFound, errPhotoNotFound, errCornersInvalid, errImageEmpty, errImageTooLarge, errImageNotImage, errImageDamaged
    case pagePhotos, pagePhoto, takePagePhoto, uploadPhoto, photoSaved, photoDeleted, quotesHeading, addQuote, allQuotes, quoteText, quoteNote, saveQuote, quoteSaved, quoteDeleted, searchQuotes, noQuotesYet, makeQuote, readingText, ocrTrimHint, ocrFoundNothing, zoomHint, download, straighten, straightenHint, cornersField, cornersHint, undoCrop, cropUndone, pageStraightened, cornerTopLeft, cornerTopRight, cornerBottomRight, cornerBottomLeft, markUp, toolPen, toolHighlighter, toolEraser, saveMarkup, markupSaved, deletePhoto, photoStraightened, toolPencil, toolRuler, markupUndo, markupColour, colourRed, colourBlue, colourGreen, colourBlack, zoomIn, zoomOut
    case memberYearInBooks, classReading, classReadingOf, noClassesYet, chooseAClass, sinceField, show, classTotals
    case errShareNotFound, shareYear, shareYearHint, shareLink, shareLinkHint, stopSharing, shareMade, shareStopped
    case badgeLegend, badgeLabel
    case errPublishedNoYear
    case starsOutOfFive
    case exportHistory, importHistoryHint, errReadNotFound, errPageBeyondEnd, errNoPageHeard, errHeardOutOfRange, errSayOneProgress, errMomentInFuture, errUnknownReadStatus, yourRating, saveRating, ratingSaved, goalSaved, finishedFlash, progressSaved, statusSavedFlash, loggedForMember, readDeleted, readWant, readReading, readFinished, readDNF, pageOfPercent, pageOnly, percentOnly, pageField, pageFieldHint, listening, speakPage, saveProgress, yourReading, startedOn, finishedOn, navReading, readingStats, noReadingYet, noReadsHere, noReadingYetHint, yearInBooks, goalFor, goalRingTitle, goalBooks, goalPages, onPace, pagesGoalText, setGoal, currentStreak, longestStreak, perMonth, booksPerMonthTitle, pagesPerMonthTitle, readingNow, pagesPerDay, projectedFinish, perYear, yearCol, monthCol, byStatus, ratingsTitle, topAuthors, topCategories, longestBook, shortestBook, pageCountText, showAsTable, logForMember, addToLog, readingLog, noReadsForMember, removeFromLog, logForMemberHint, whenField
    case statusDamaged, statusNote, copyStatusChange, readMore, copyStatusSaved, removeCopy, copyRemoved, borrowingHistory, handOver, errDuplicateLibraryName
    case errNotAPage, errMethodNotAllowed, sharedSinceText, newShareLink
    case errNotAnID, errTrueOrFalse, errWholeNumberRange, errOneOf, errUnreadableForm, errNoFileField
    case errFieldRequired, errFieldType, kindText, kindNumber, kindTrueFalse, kindDate, kindID, kindValue, errBodyNotJSON
    case errSignInFirst, errCSRFHeader, errFormNoBoundary, errFormBadPart, errISBNUnknownNeedTitle, errProvidersDownNeedTitle
    case errConfirmRestore, errConfirmErase, errConfirmDeleteLibrary, errBackupBodyMissing, errNameNewLibrary, errUploadTooLarge
    case errShelfNeeded, errCannotDraw, errCalendarGone, lookupSayWhat
    // Fines
    case errNothingOwed, errMoreThanOwed, errMemberSuspended, errOwesFines, errUnknownCurrency, actSuspendedUntil
    case actFineCharged, actFinePaid, actFineWaived, actMemberSuspended
    case finesHeading, fineModeField, fineModeOff, fineModeMoney, fineModeSuspension, finePerDayField, fineGraceField, fineCapField, fineCapHint
    case fineSuspensionField, fineBlockField, fineBlockHint, currencyField, currencyHint, fineOwes, fineOwesNothing, fineAccruing, fineSuspendedUntil
    case fineAmountField, fineAmountHint, fineTakePayment, fineWaive, fineReasonField, finePaidFlash, fineWaivedFlash, fineKindCharge, fineKindPayment, fineKindWaiver
    // Reminders
    case mailDueSoonSubject, mailDueSoonBody, mailOverdue1Subject, mailOverdue1Body, mailOverdue2Subject, mailOverdue2Body
    case mailOverdue3Subject, mailOverdue3Body, mailHoldReadySubject, mailHoldReadyBody, mailTestSubject, mailTestBody, mailLoanDue, mailLoanOverdue
    case errNoMailServer, errUnknownPlaceholder, errLoansMissing, errPasswordInClear, errPrivateMailHost, errInvisibleCharacter, errTooManyHolds, errTestOnlyToLibrary, errTooManyTests, errUnknownLanguage
    // Reading progress typed without a network.
    case readingOfflineKept, readingOfflineUnreadable, readingOfflineSent
    // The self-service kiosk.
    case kioskListHeading, kioskListEmpty, kioskListItem, kioskLastUsed, kioskEndThis, kioskRemoved
    case kioskTitle, kioskSetupIntro, kioskSignsOut, kioskStart, kioskNotHere, kioskWelcome, kioskScanCard, kioskGo, kioskHello, kioskBookField, kioskScanHint, kioskBorrowOrReturn, kioskDone, kioskIdleHint, kioskEndLink, kioskEndIntro, kioskBack, kioskEnded, kioskBorrowed, kioskReturned, errKioskUnknownCard, errKioskUnknownBook, errKioskSomeoneElses, errKioskSetAside, kioskAsksPinField, errKioskNotLibrarian
    // The public catalog and its members' sign-in.
    case errPortalBadCredentials, errPortalBadPIN, errPortalLinkInvalid, errPortalSignedOut, errLinkMissing, errPublicRateLimited, mailSignInLinkSubject, mailSignInLinkBody, templateKindSignInLink, catalogIndexable, publicCatalogAt, portalSignIn, portalMyAccount, portalCatalogHeading, portalNothingFound, portalCatalogEmpty, portalHoldReady, portalHoldPlaced, portalLinkNoAddress, portalLinkSent, portalSignedOut, portalRenewed, portalHoldCancelled, portalWaiting, portalYourHoldReady, portalYourPlace, portalYouHaveIt, portalPlaceHold, portalSignInToHold, portalWhere, portalCopyLine, portalNoShelf, portalDueBack, portalSignInIntro, portalCardField, portalPinField, portalPinHint, portalByEmail, portalByEmailHint, portalSendLink, portalLinkReady, portalHello, portalCardLine, portalYourLoans, portalNoLoans, portalYourHolds, portalNoHolds, portalCancelHold, portalFindBooks, portalCalendarHint, memberPinField, memberPinHint, memberPinSet, memberPinRemove
    case errMemberWithoutEmail, errNothingToRemind, errMailNotFailed, errNotHost, errMessageNotFound, errOverdueSameDay, lettersTitle, printLetters, mailServerAllHeading, mailServerAllHint, jobReminders, remindersSent
    case remindersTitle, remindersIntro, remindersOnField, reminderHourField, reminderBeforeField, reminderBeforeHint, reminderOverdue1Field, reminderOverdue2Field, reminderOverdue3Field, reminderOverdueHint, reminderLanguageField, reminderContactField, reminderContactHint, remindersSaved, remindersOffNote, remindersNextRun, mailServerHeading, mailServerInstallation, mailServerNone, mailHostField, mailPortField, mailSecurityField, mailSecurityStarttls, mailSecurityTls, mailSecurityNone, mailUserField, mailPasswordField, mailPasswordHint, mailSenderField, mailSenderNameField, mailServerRemove, mailServerSaved, mailServerRemoved, mailTestHeading, mailTestTo, mailTestSend, mailWentOut, mailDidNotGo, templatesHeading, templatesIntro, templateKindDueSoon, templateKindOverdue1, templateKindOverdue2, templateKindOverdue3, templateKindHoldReady, templateKindTest, templateEdited, templateSubjectField, templateBodyField, templatePlaceholders, templateReset, templateSaved, templateResetDone, mailLogTitle, mailLogIntro, mailLogEmpty, mailLogFailedOnly, mailLogAll, mailStatusQueued, mailStatusSending, mailStatusSent, mailStatusFailed, mailProblemNoServer, mailProblemConnect, mailProblemTimeout, mailProblemTls, mailProblemAuth, mailProblemRejected, mailProblemLost, mailProblemAddress, mailRetry, mailFailedBanner, remindNow, lastReminder, noReminderYet, memberLanguageField, memberLanguageLibrary, overdueByMember, sentMessagesLink
    // Background work
    case backgroundWork, backgroundIntro, scheduledWork, recentRuns, jobImport, jobRestore, jobPrune, jobEnrich, jobExpireHolds, expiredHolds, jobRunning, jobDone
    case jobFailed, scheduleDaily, scheduleWeekly, nextRun, removedRecords, enrichmentQueue, noRunsYet
    // The installation's nightly backups; upgrades
    case diskFullBanner
    case nightlyBackups, backupsIntro, backupLastGood, backupNone, backupFolderLabel, backupFolderHint, backupHourLabel, backupHourHint
    case keepDailyLabel, keepWeeklyLabel, keepMonthlyLabel, backupNow, backupStarted, backupRunning, backupSettingsSaved, backupSettingsHeading
    case backupFreeSpaceLabel, backupFreeSpace, backupWarnStale, backupWarnFull, backupWarnUnusable, backupLastFailure, backupPostgresNote
    case backupListHeading, backupEntry
    case errBackupFolderNotAbsolute, errBackupFolderForbidden, errBackupFolderMissing, errBackupFolderNotWritable, errBackupNoRoom
    case errBackupRunning, errBackupUnverified
    case drillHeading, drillLastGood, drillFailed, drillNone, drillNow, drillStarted, errNothingToDrill, errDrillMismatch
    // Reports
    case reportsBehind, reportsTitle, reportCirculation, reportCirculationAbout, reportCollection, reportCollectionAbout, reportWeeding, reportWeedingAbout, reportReaders, reportReadersAbout, reportMoney, reportMoneyAbout, reportPeriod, reportSchoolYear, reportLastSchoolYear, reportThisMonth, reportLastMonth, reportLast12Months, reportThisYear, reportCustomRange, reportFrom, reportTo, reportCountBy, reportByMonth, reportByWeek, reportNotLentYears, reportOlderThanYears, reportAllClasses, reportAllCategories, reportAllLevels, reportAllBooks, reportCategory, reportShow, reportDownloadCSV, reportTableCSV, reportAsOf, reportShownOf, reportNothingCounted, reportTotal, reportSummary, reportFigure, reportValue, reportAmount, reportMonth, reportWeekOf, reportLoans, reportReturns, reportRenewals, reportOverdueLoans, reportOverdueRate, reportOverdueNote, reportBorrowers, reportHoldsPlaced, reportHoldsFilled, reportDaysToFill, reportLoansOverTime, reportLoansByClass, reportLoansByCategory, reportLoansByShelf, reportNoClass, reportClassAtLendingNote, reportTwoCategoriesNote, reportTitles, reportCopies, reportLostOrDamaged, reportCopiesAdded, reportByCategory, reportByShelf, reportByLevel, reportByDecade, reportDecade, reportYearUnknown, reportPublished, reportAcquisitions, reportWeedingList, reportWeedingNote, reportAcquired, reportLastLent, reportLostThisYear, reportSince, reportReadingByClass, reportReadingByMember, reportReadingByLevel, reportShareBorrowed, reportFormerMembers, reportPagesLogged, reportPages, reportPagesNote, reportCharged, reportPaid, reportWaived, reportOwedNow, reportFinesOverTime, reportFormerFinesNote, errReportRange, errReportTooLong, errReportTooManyWeeks, errReportCollectionTooLarge, reportThisTerm, reportLastTerm, savedReportsHeading, savedReportsEmpty, savedReportSaveHeading, savedReportName, savedReportSaveHint, savedReportSaved, savedReportChanged, savedReportDeleted, savedReportSent, savedReportChange, savedReportSchedule, savedReportNotMailed, savedReportMonthly, savedReportTermly, savedReportRecipients, savedReportSendNow, savedReportDelete, savedReportMailedTo, savedReportLastSent, savedReportOwnersMail, errSavedReportNotFound, errSavedReportNameTaken, errSavedReportsTooMany, errSavedReportNeedsRecipients, errSavedReportTooManyRecipients, errSavedReportTooManySent, errSavedReportNotDelivered, mailReportSubject, mailReportBody, mailReportTooLarge, mailReportFailed, templateKindReport, jobMailReports, publicFiguresField, publicFiguresLent, publicFiguresMostBorrowed, errReportOptions
    case rolloverTitle, rolloverIntro, rolloverNoClasses, rolloverBecomes, rolloverLeaves, rolloverClearGoals, rolloverHint, rolloverButton, rolloverDoneHeading, rolloverSummary, rolloverUndo, rolloverUndoneOn, rolloverBackup, rolloverDone, rolloverUndoneFlash, auditRollover, auditRolloverUndone, errRolloverEmpty, errRolloverTooMany, errRolloverNoClass, errRolloverTwice, errRolloverNotFound, errRolloverUndone, errRolloverNotLatest
    case privacySchoolID, privacyRecord, privacyLoans, privacyLent, privacyDue, privacyReturned, privacyState, privacyPlaced, privacyFines, privacyOn, privacyReading, privacyStarted, privacyFinished, privacyMessages, privacySubject, privacyTo, privacyTitle, privacyHeading, privacyHint, privacyDataJSON, privacyDataPDF, privacyReason, privacyEraseHint, privacyEraseButton, memberErasedFlash, auditMemberExported, auditMemberErased, auditFormerMember, errErasureReason, errErasureLoans, errErasureOwes
    case rosterNightlyField, rosterNightlyHint, jobRosterFolder, rosterHeldBack
    case retentionField, retentionHint, jobRetention, auditRetention, auditRetentionDetail
    case errRolloverBackupErased, rosterRefusedCount, errMemberLeft, formerMembers, formerMembersHint, formerMembersLink, rosterTitle, rosterIntro, rosterFile, rosterFileHint, rosterMode, rosterModeFull, rosterModeDelta, rosterColumns, rosterColumnsHint, rosterColNumber, rosterColName, rosterColGuardian, rosterPreviewButton, rosterRuns, rosterNoRuns, rosterRunCounts, rosterApplied, rosterNotApplied, rosterRunTitle, rosterSummary, rosterAdded, rosterChanged, rosterLeaving, rosterLeavingHint, rosterRefusedRows, rosterLoansOut, rosterWithoutID, rosterApplyButton, rosterApplyHint, rosterAppliedFlash, rosterExpired, rosterMore, rosterLinked, rosterBack, rosterFileLine, rosterProbMissing, rosterProbTooLong, rosterProbEmail, rosterProbDuplicate, rosterProbFieldCount, rosterProbControl, rosterProbCardTaken, rosterProbCardTwice, memberArchivedOn, archiveMember, unarchiveMember, memberArchivedFlash, memberUnarchivedFlash, auditTitle, auditIntro, auditEmpty, auditRosterApplied, auditMemberArchived, auditMemberUnarchived, auditStaffAdded, auditRoleChanged, auditStaffRemoved, auditRestore, auditErase, actMemberArchived, actMemberUnarchived, actRosterSynced, actRosterSyncedDetail, errRosterTooLarge, errRosterZip, errNotARoster, errRosterMissingFile, errRosterMissingColumns, errRosterTooMany, errRosterUnreadable, errRosterVersion, errRosterRunNotFound, errRosterApplied, errRosterExpired, errRosterField
    case rosterTeachersHeading, rosterTeacherStaff, rosterTeacherExisting, rosterTeacherNew, rosterTeacherNoEmail, rosterTeachersAs, rosterTeachersAsOff, rosterTeachersAsHint, rosterStaffAdded, classTeacherReport
    case errRemindedToday, errRemindedTodayDaily, remindAgain, keepAsIs
    case returnCharges, returnSuspends
    case readersRatings
    case bookSourcesTitle, bookSourcesIntro, bookSourceOff, bookSourcePosition, bookSourcesSaved, errBookSourcesNone, errBookSourcesTwice
    case errNoMARCRecord
    case narrowRating, ratingAny, ratingAtLeast, readingAny, readingNotFinished
    case arrangeCallNumber, noCallNumberGroup
    case coverRead
    case errBookSourceListedTwice
    case publicWishlistHeading, publicWishlistIntro, publicWishlistEmpty, publicWishlistLink
    case moreSeriesField, moreSeriesHint, errTooManySeries
    case categoryCallNumbersHeading, categoryPrefixField, categoryPrefixHint, categoryPrefixDewey, categorySchemeSaved, errCategoryPrefix, actCategoryCallNumbers, categorySchemeDewey, categorySchemeNone
    case bulkSelect, bulkSelectAll, bulkSelectEnd, bulkActionField, bulkValueField, bulkValueHint, bulkContinue, bulkAddCategory, bulkRemoveCategory, bulkShelf, bulkReadingLevel, bulkSeries, bulkCallNumberPrefix, bulkDelete, bulkChangeWithValue, bulkNoValue, bulkConfirmTitle, bulkConfirmHeading, bulkDeleteWarning, bulkUndoHint, bulkChangeButton, bulkDeleteButton, bulkDone, bulkSkippedSome, bulkUndone, bulkUndoneDetail, bulkLastChange, bulkUndo, bulkSkipNotInCatalog, bulkSkipOnLoan, bulkSkipHolds, bulkSkipReadersNotes, errBulkNoTitles, errBulkTooMany, errBulkCategoryNeeded, errBulkPrefixOneWord, errBulkNothingToUndo
    case callNumberField, callNumberHint, sortShelf, marcRecordHeading, marcRecordDownload, lookupGaveFields, lookupSourcesHeading
    case errSchoolNotConfigured, errSchoolUnreachable, errSchoolProviderAnswer, errSchoolCodeRefused, errSchoolBadToken, errSchoolExpired, errSchoolForged, errSchoolDenied, errSchoolNoEmail, errSchoolNoAccount, errSchoolNoMember, errSchoolBusy, errSchoolPasswordOff, errSchoolIssuer, errSchoolTenant, errSchoolRole, errSchoolClaim, errSchoolDomainNeeded, errSchoolLibraryNeeded, errSchoolPasswordsNeed, errSchoolIncomplete, errSchoolEmailTaken, errSchoolNoAddress, schoolSettingsSaved, staffEmailSaved, staffEmailRemoved, schoolSignInTitle, schoolSignInIntro, schoolRedirectHint, schoolProvider, schoolProviderOther, schoolTenant, schoolTenantHint, schoolIssuer, schoolIssuerHint, schoolClientID, schoolClientSecret, schoolSecretKept, schoolDomain, schoolDomainHint, schoolWho, schoolForStaff, schoolForMembers, schoolStudentClaim, schoolStudentClaimHint, schoolNewAccounts, schoolNewAccountsOff, schoolNewAccountsHint, schoolAccountLibrary, schoolPasswordOff, schoolMembersPIN, schoolPasswordOffHint, schoolSignInWith, staffSchoolEmail, staffSchoolEmailHint
}

/// Counted phrases (`msgid_plural`), one form per plural form the language has.
enum P: String, CaseIterable, Sendable {
    case titles, titlesMoreThan, copiesAvailable, daysOverdue, loansOut, days, favoritesCount, copiesOnLoan, copiesCount, membersCount
    case readTimes, booksAhead, booksBehind, pagesAhead, pagesBehind, daysInARow
}
