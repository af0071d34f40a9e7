/// A gettext `Plural-Forms` header (`nplurals=5; plural=(n==1 ? 0 : n==2 ? 1 : …);`): how many forms a
/// language has and which one a number takes. The expression is C: `n`, whole numbers, `( )`,
/// `! * / % + - < <= > >= == != && || ?:`. Parsed once; choosing a form is a walk of a small tree.
public struct PluralRule: Sendable, Equatable {
    public let count: Int
    let expression: Expr

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    indirect enum Expr: Sendable, Equatable {
        case n
        case number(Int)
        case not(Expr)
        case binary(String, Expr, Expr)
        case choice(Expr, Expr, Expr)
    }

    /// English and German: one, other.
    public static let oneOther = try! PluralRule("nplurals=2; plural=(n != 1);")

    public init(_ header: String) throws(Problem) {
        var count: Int?
        var plural: String?
        for part in header.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.count == 2 else { continue }
            if pieces[0] == "nplurals" { count = Int(pieces[1]) }
            if pieces[0] == "plural" { plural = pieces[1] }
        }
        guard let count, (1...6).contains(count) else { throw Problem(reason: "nplurals must be a number from 1 to 6") }
        guard let plural else { throw Problem(reason: "no plural= expression") }
        var parser = Parser(Array(plural.utf8))
        let expression = try parser.parseChoice()
        parser.skipSpaces()
        guard parser.atEnd else { throw Problem(reason: "unexpected text after the expression at \(parser.position)") }
        self.count = count
        self.expression = expression
        // A rule that names a form the language does not have is a broken file, not a runtime surprise.
        for n in 0...1_000 where !(0..<count).contains(Self.evaluate(expression, n)) {
            throw Problem(reason: "plural= gives form \(Self.evaluate(expression, n)) for \(n), but nplurals is \(count)")
        }
    }

    /// The index of the form `n` takes (0 ..< count).
    public func form(_ n: Int) -> Int {
        let value = Self.evaluate(expression, abs(n))
        return (0..<count).contains(value) ? value : count - 1
    }

    static func evaluate(_ e: Expr, _ n: Int) -> Int {
        switch e {
        case .n: return n
        case .number(let v): return v
        case .not(let a): return evaluate(a, n) == 0 ? 1 : 0
        case .choice(let c, let a, let b): return evaluate(c, n) != 0 ? evaluate(a, n) : evaluate(b, n)
        case .binary(let op, let a, let b):
            let x = evaluate(a, n)
            if op == "&&" { return x != 0 && evaluate(b, n) != 0 ? 1 : 0 }
            if op == "||" { return x != 0 || evaluate(b, n) != 0 ? 1 : 0 }
            let y = evaluate(b, n)
            switch op {
            case "==": return x == y ? 1 : 0
            case "!=": return x != y ? 1 : 0
            case "<": return x < y ? 1 : 0
            case "<=": return x <= y ? 1 : 0
            case ">": return x > y ? 1 : 0
            case ">=": return x >= y ? 1 : 0
            case "+": return x &+ y
            case "-": return x &- y
            case "*": return x &* y
            case "/": return y == 0 ? 0 : x / y
            case "%": return y == 0 ? 0 : x % y
            default: return 0
            }
        }
    }

    struct Parser {
        let bytes: [UInt8]
        var position = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var atEnd: Bool { position >= bytes.count }

        mutating func skipSpaces() { while position < bytes.count, bytes[position] == 32 || bytes[position] == 9 { position += 1 } }

        mutating func take(_ token: String) -> Bool {
            skipSpaces()
            let t = Array(token.utf8)
            guard position + t.count <= bytes.count, Array(bytes[position..<position + t.count]) == t else { return false }
            // `<` must not be the start of `<=`, nor `!` of `!=`, nor `=`… of `==`.
            if t.count == 1, position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "="), "<>!=".utf8.contains(t[0]) { return false }
            if token == "&" || token == "|" { return false }
            position += t.count
            return true
        }

        mutating func parseChoice() throws(Problem) -> Expr {
            let condition = try parseBinary(0)
            if take("?") {
                let yes = try parseChoice()
                guard take(":") else { throw Problem(reason: "expected : at \(position)") }
                let no = try parseChoice()
                return .choice(condition, yes, no)
            }
            return condition
        }

        static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<=", ">=", "<", ">"], ["+", "-"], ["*", "/", "%"]]

        mutating func parseBinary(_ level: Int) throws(Problem) -> Expr {
            if level == Self.levels.count { return try parseUnary() }
            var left = try parseBinary(level + 1)
            outer: while true {
                for op in Self.levels[level] where take(op) {
                    left = .binary(op, left, try parseBinary(level + 1))
                    continue outer
                }
                return left
            }
        }

        mutating func parseUnary() throws(Problem) -> Expr {
            if take("!") { return .not(try parseUnary()) }
            if take("(") {
                let inner = try parseChoice()
                guard take(")") else { throw Problem(reason: "expected ) at \(position)") }
                return inner
            }
            skipSpaces()
            if position < bytes.count, bytes[position] == UInt8(ascii: "n") { position += 1; return .n }
            var value = 0
            let start = position
            while position < bytes.count, (48...57).contains(bytes[position]), value < 1_000_000 {
                value = value * 10 + Int(bytes[position] - 48)
                position += 1
            }
            guard position > start else { throw Problem(reason: "expected n, a number or ( at \(position)") }
            return .number(value)
        }
    }
}
