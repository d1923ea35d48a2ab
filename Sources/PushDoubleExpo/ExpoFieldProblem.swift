/// What was wrong with one message field; ``ExpoFieldProblem/joiText`` turns it into the
/// `API_ERROR` message (docs/expo.md §3.2).
public struct ExpoFieldProblem: Sendable, Equatable {
    /// What the value should have been.
    public enum Kind: Sendable, Equatable {
        /// `"<name>" must be <expected>` (`a string`, `a number`, `a boolean`, `an object`).
        case wrongType(expected: String)
        /// `"<name>" must be one of [a, b]`.
        case notOneOf([String])
        /// `"<name>" is required`.
        case required
        /// `"<name>" is not allowed` (unknown member under the reject policy).
        case notAllowed
    }

    /// Index of the message in an array body; nil for a single-object body.
    public var messageIndex: Int?
    /// The path inside the message, outermost first: `["to"]`, `["to", "1"]` (array item), `["sound", "name"]`.
    public var path: [String]
    public var kind: Kind

    public init(messageIndex: Int?, path: [String], kind: Kind) {
        self.messageIndex = messageIndex; self.path = path; self.kind = kind
    }

    /// Joi-style text. docs/expo.md §3.2 records two texts ([O] https://github.com/expo/expo/issues/9290, the Python SDK
    /// docstring [L]): `"value" must be of type object.` and, for a single object whose `to`
    /// is not a string, `child "to" fails because ["to" must be a string]. "value" must be an array.`
    /// This reproduces the second exactly and extends its pattern (ours, not recorded): a member is
    /// `child "<name>" fails because [<inner>]`, an array item `"<name>" at position <i> fails because
    /// [<inner>]` with the item named `"<i>"`, and a message of an array body is wrapped as item
    /// `<index>` of `"value"`. A single-object body gets the trailing `. "value" must be an array.`
    /// (the failed array alternative); an array body gets a final `.`. An empty path is the body
    /// (`"value" must be of type object.`, recorded) or an array item that is not an object
    /// (`"value" at position <i> fails because ["<i>" must be an object].`, ours).
    public static func joiText(_ p: ExpoFieldProblem) -> String {
        guard !p.path.isEmpty else {
            // The body itself, or one item of an array body, is not an object.
            guard let index = p.messageIndex else { return "\"value\" must be of type object." }
            return "\"value\" at position \(index) fails because [\"\(index)\" must be an object]."
        }
        let inner = joiInner(path: p.path, kind: p.kind)
        if let index = p.messageIndex { return "\"value\" at position \(index) fails because [\(inner)]." }
        return inner + ". \"value\" must be an array."
    }

    /// The Joi-style text of one problem at `path` (non-empty) inside an object, without the
    /// body-level wrapping: `child "to" fails because ["to" must be a string]`.
    public static func joiInner(path: [String], kind: Kind) -> String {
        let last = path[path.count - 1]
        var inner: String
        switch kind {
        case .wrongType(let expected): inner = "\"\(last)\" must be \(expected)"
        case .notOneOf(let values): inner = "\"\(last)\" must be one of [\(values.joined(separator: ", "))]"
        case .required: inner = "\"\(last)\" is required"
        case .notAllowed: inner = "\"\(last)\" is not allowed"
        }
        // Wrap from the innermost segment outwards: a position inside its array, a member inside its object.
        for i in stride(from: path.count - 1, through: 0, by: -1) {
            let segment = path[i]
            if i > 0, Int(segment) != nil {
                inner = "\"\(path[i - 1])\" at position \(segment) fails because [\(inner)]"
            } else {
                inner = "child \"\(segment)\" fails because [\(inner)]"
            }
        }
        return inner
    }
}
