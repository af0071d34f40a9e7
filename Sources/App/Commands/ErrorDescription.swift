import Foundation
import Vapor

/// A one-line, human message for an error that ends a command.
public func describe(_ error: any Error) -> String {
    switch error {
    case let error as AppError: error.message
    case let error as any DomainError: error.message(Strings(lang: .en))
    case let error as CLIError: error.description
    case let error as any AbortError: error.reason
    case let error where StorageHealth.isDiskFull(error):
        "The disk is full, so nothing was saved. Free some space on the disk that holds Shelfmark's data and try again."
    default: databaseErrorDescription(error) ?? String(describing: error)
    }
}
