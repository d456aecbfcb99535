/// One property of a command as the parser and the help see it: its slot, its names and labels,
/// and the heading it is listed under.
struct ArgumentDefinition {
    let slot: ArgumentSlot
    /// The `@OptionGroup` title it was declared under; empty for the command's own and untitled groups.
    let groupTitle: String
    /// `--name` forms, the first preferred; for a flag with an inversion, the names that set true.
    let longNames: [String]
    /// `-n` forms.
    let shortNames: [String]
    /// The names that set an inverted flag to false (`--no-name`, `--disable-name`).
    let inverseNames: [String]
    /// The value's name, without brackets.
    let valueName: String

    init(slot: ArgumentSlot, propertyName: String, groupTitle: String) {
        self.slot = slot
        self.groupTitle = groupTitle
        let (long, short) = slot.nameSpecification.names(for: propertyName)
        let base = long.first.map { String($0.dropFirst(2)) } ?? propertyName.kebabCased
        switch slot.inversion {
        case .prefixedNo?:
            longNames = long
            inverseNames = long.map { "--no-" + $0.dropFirst(2) }
        case .prefixedEnableDisable?:
            longNames = long.map { "--enable-" + $0.dropFirst(2) }
            inverseNames = long.map { "--disable-" + $0.dropFirst(2) }
        case nil:
            longNames = long
            inverseNames = []
        }
        shortNames = short
        valueName = slot.help.valueName ?? base
    }

    var kind: ArgumentKind { slot.kind }

    /// How errors name it: `--name <value>`, `--name`, or `<value>`.
    var label: String {
        switch kind {
        case .option: return (longNames.first ?? shortNames.first ?? "") + " <\(valueName)>"
        case .flag: return longNames.first ?? shortNames.first ?? ""
        case .positional: return "<\(valueName)>"
        }
    }

    /// How help lists it: `-b, --bootstrap <bootstrap>`, `--enable-x/--disable-x`, `<name>`.
    var helpLabel: String {
        switch kind {
        case .option: return (shortNames + longNames).joined(separator: ", ") + " <\(valueName)>"
        case .flag:
            let names = (shortNames + longNames).joined(separator: ", ")
            return inverseNames.isEmpty ? names : names + "/" + inverseNames.joined(separator: "/")
        case .positional: return "<\(valueName)>"
        }
    }

    /// Its part of the usage line: `[--name <value>]`, `[--flag]`, `<arg>`, `[<arg> ...]`.
    var synopsis: String {
        var text: String
        switch kind {
        case .option: text = (longNames.first ?? shortNames.first ?? "") + " <\(valueName)>"
        case .flag:
            let positive = longNames.first ?? shortNames.first ?? ""
            guard let negative = inverseNames.first else { return "[\(positive)]" }
            return "[\(positive)] [\(negative)]"
        case .positional: text = "<\(valueName)>"
        }
        if slot.isRepeating { text += " ..." }
        return slot.isRequired ? text : "[\(text)]"
    }

    /// The help text's parenthesis: `(values: a, b; default: a)`, or nil.
    var valuesAndDefault: String? {
        var parts: [String] = []
        if !slot.allValues.isEmpty { parts.append("values: " + slot.allValues.joined(separator: ", ")) }
        if let shown = slot.defaultDescription {
            if kind == .flag {
                let name = shown == "true" ? longNames.first : inverseNames.first
                if let name { parts.append("default: " + name) }
            } else {
                parts.append("default: " + shown)
            }
        }
        return parts.isEmpty ? nil : "(" + parts.joined(separator: "; ") + ")"
    }
}

/// The properties of a command, found with `Mirror` in a fresh value of it, in declaration order
/// (a group's in place of the group), and the groups themselves (to validate them).
struct ArgumentDefinitions {
    var all: [ArgumentDefinition] = []
    var groups: [any ParsableArguments] = []

    init(of arguments: any ParsableArguments) {
        collect(arguments, groupTitle: "")
    }

    private mutating func collect(_ arguments: any ParsableArguments, groupTitle: String) {
        for child in Mirror(reflecting: arguments).children {
            guard var name = child.label else { continue }
            if name.hasPrefix("_") { name.removeFirst() }
            if let holder = child.value as? any ArgumentSlotHolder {
                all.append(ArgumentDefinition(slot: holder.slot, propertyName: name, groupTitle: groupTitle))
            } else if let group = child.value as? any ArgumentGroupHolder {
                groups.append(group.arguments)
                collect(group.arguments, groupTitle: group.title.isEmpty ? groupTitle : group.title)
            }
        }
    }

    var positionals: [ArgumentDefinition] { all.filter { $0.kind == .positional } }
    var named: [ArgumentDefinition] { all.filter { $0.kind != .positional } }

    /// The long name nearest `name` by edit distance, if fewer than four edits apart (the first
    /// such in declaration order on a tie).
    func longName(closestTo name: String) -> String? {
        var best: (name: String, distance: Int)?
        let candidates = named.flatMap { $0.longNames + $0.inverseNames }
        for candidate in candidates {
            let distance = candidate.editDistance(to: name)
            if distance < 4, distance < best?.distance ?? Int.max { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The definition `name` (with its dashes) names, and the flag value it stands for.
    func definition(named name: String) -> (ArgumentDefinition, flagValue: Bool)? {
        for definition in all where definition.kind != .positional {
            if definition.longNames.contains(name) || definition.shortNames.contains(name) { return (definition, true) }
            if definition.inverseNames.contains(name) { return (definition, false) }
        }
        return nil
    }
}

extension String {
    /// The Levenshtein distance: the fewest insertions, deletions and substitutions of characters
    /// that turn `self` into `other`.
    func editDistance(to other: String) -> Int {
        let target = Array(other)
        // One row of the table at a time: the distances from a prefix of self to each prefix of other.
        var previous = Array(0 ... target.count)
        for (sourceIndex, sourceCharacter) in enumerated() {
            var current = [sourceIndex + 1]
            for (targetIndex, targetCharacter) in target.enumerated() {
                let substitution = previous[targetIndex] + (sourceCharacter == targetCharacter ? 0 : 1)
                current.append(Swift.min(substitution, previous[targetIndex + 1] + 1, current[targetIndex] + 1))
            }
            previous = current
        }
        return previous[target.count]
    }
}
