import Foundation
import ShelfmarkCore
import Vapor

/// A roster read and kept: its preview, and once applied, what was done.
struct RosterRunDTO: Content {
    var id: UUID
    var createdAt: Date
    var createdBy: String
    /// `upload`, `api` or `folder` (the nightly read of the library's drop folder).
    var source: String
    var fileName: String
    var mode: RosterFile.Mode
    var appliedAt: Date?
    var appliedBy: String?
    var plan: RosterPlanDTO
}

/// What applying a roster does (a preview) or did (an applied run).
struct RosterPlanDTO: Content {
    /// `oneroster-1.1`, `oneroster-1.2` or `csv`.
    var format: String
    var mode: RosterFile.Mode
    /// Students and teachers the roster names.
    var students = 0
    var teachers = 0
    var added: [RosterNewMemberDTO] = []
    var changed: [RosterChangeDTO] = []
    /// Members who left: archived, with the books they still have out.
    var leaving: [RosterLeaverDTO] = []
    var unchanged = 0
    /// Rows not taken, by file and line, with why.
    var refused: [RosterProblemDTO] = []
    /// Members added by hand (no id of the school's): a sync leaves them as they are.
    var withoutSchoolID = 0
    /// The counts only (a list of runs): how many were added, changed, archived and refused.
    var counts: RosterCountsDTO? = nil
    /// The roster's teachers and what they would be as staff (applied with a role for them).
    var teacherAccounts: [RosterTeacherDTO]? = nil
    /// Applied: the role the teachers were given (none: not made staff) and how many joined the staff.
    var staffRole: Role? = nil
    var staffAdded: Int? = nil

    /// The plan without its lists, with their counts.
    var counted: RosterPlanDTO {
        var plan = RosterPlanDTO(format: format, mode: mode, students: students, teachers: teachers, unchanged: unchanged, withoutSchoolID: withoutSchoolID)
        plan.counts = RosterCountsDTO(added: added.count, changed: changed.count, leaving: leaving.count, refused: refused.count)
        return plan
    }
}

/// Applying a roster: with `teachersAs` (owners only), its teachers with an e-mail become staff with that
/// role (a role they have stays) and their classes are kept for the readers report.
struct RosterApplyInput: Content, SchemaConstrained {
    var teachersAs: Role?
    static var schemaConstraints: [String: JSONValue] { ["teachersAs": ["enum": ["viewer", "volunteer", "librarian"]]] }
}

struct RosterCountsDTO: Content {
    var added: Int
    var changed: Int
    var leaving: Int
    var refused: Int
}

struct RosterNewMemberDTO: Content {
    var card: String
    var name: String
    var grade: String?
    var email: String?
}

struct RosterChangeDTO: Content {
    struct Field: Content {
        /// `firstName`, `lastName`, `grade`, `email`, `guardianEmail`, `rosterId` (linked to the school's id), `archived` (back from the archive).
        var field: String
        var from: String?
        var to: String?
    }
    var memberId: UUID
    var card: String
    var name: String
    var changes: [Field]
}

struct RosterLeaverDTO: Content {
    var memberId: UUID
    var card: String
    var name: String
    var grade: String?
    /// The titles they still have out (to follow up).
    var loansOut: [String]
}

struct RosterProblemDTO: Content {
    var file: String
    var line: Int
    /// `missing`, `too_long`, `invalid_email`, `duplicate_id`, `field_count`, `control`, `card_taken`, `card_matched_twice`.
    var code: String
    var values: [String: String]
    /// Why, in English.
    var reason: String

    init(file: String, line: Int, code: String, values: [String: String]) {
        (self.file, self.line, self.code, self.values) = (file, line, code, values)
        reason = switch code {
        case "card_taken": "the card “\(values["card"] ?? "")” belongs to \(values["name"] ?? "") (with another id of the school's)"
        case "card_matched_twice": "the card “\(values["card"] ?? "")” (\(values["name"] ?? "")) is matched by an earlier row"
        default: RosterFile.Problem(file: file, line: line, code: code, values: values, id: nil).reason
        }
    }

    init(_ problem: RosterFile.Problem) {
        self.init(file: problem.file, line: problem.line, code: problem.code, values: problem.values)
    }
}
