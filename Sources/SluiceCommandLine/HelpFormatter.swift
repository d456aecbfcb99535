/// Writes a command's help and usage as ArgumentParser lays them out: an overview, the usage
/// line, then sections (arguments, titled option groups, options, subcommands), each entry's
/// label in a 26-column gutter and its text wrapped at 80 columns.
struct HelpFormatter {
    /// The commands from the root to the one described.
    let path: [any ParsableCommand.Type]

    static let width = 80
    static let labelWidth = 26

    var command: any ParsableCommand.Type { path[path.count - 1] }

    /// `sluice bench tpch`.
    var commandLine: String { path.map { $0.commandName }.joined(separator: " ") }

    /// The usage line, without `USAGE: `.
    var usage: String {
        guard command.configuration.subcommands.isEmpty else { return commandLine + " <subcommand>" }
        let definitions = ArgumentDefinitions(of: command.init()).all
        if definitions.isEmpty { return commandLine }
        guard definitions.count > 12 else { return commandLine + " " + definitions.map(\.synopsis).joined(separator: " ") }
        // Too many to list: only the positional and required ones.
        let kept = definitions.filter { $0.kind == .positional || $0.slot.isRequired }
        if kept.isEmpty { return commandLine + " <options>" }
        return commandLine + " [<options>] " + kept.map(\.synopsis).joined(separator: " ")
    }

    /// The full help text, ending with a newline.
    var help: String {
        let configuration = command.configuration
        var text = ""
        var overview = configuration.abstract
        if !configuration.discussion.isEmpty { overview += (overview.isEmpty ? "" : "\n\n") + configuration.discussion }
        if !overview.isEmpty { text += Self.wrap("OVERVIEW: " + overview, indent: 0) + "\n\n" }
        text += "USAGE: " + usage + "\n\n"
        text += sections().joined(separator: "\n")
        if configuration.subcommands.contains(where: { $0.configuration.shouldDisplay }) {
            let names = [path[0].commandName, "help"] + path.dropFirst().map { $0.commandName }
            text += "\n  See '\(names.joined(separator: " ")) <subcommand>' for detailed help."
        }
        return text
    }

    private func sections() -> [String] {
        let definitions = command.configuration.subcommands.isEmpty ? ArgumentDefinitions(of: command.init()).all : []
        var sections: [String] = []
        let arguments = definitions.filter { $0.kind == .positional }
        if !arguments.isEmpty { sections.append(Self.section("ARGUMENTS", arguments.map(Self.entry))) }
        var titles: [String] = []
        for definition in definitions where !definition.groupTitle.isEmpty && !titles.contains(definition.groupTitle) {
            titles.append(definition.groupTitle)
        }
        for title in titles {
            let members = definitions.filter { $0.kind != .positional && $0.groupTitle == title }
            sections.append(Self.section(title.uppercased(), members.map(Self.entry)))
        }
        let options = definitions.filter { $0.kind != .positional && $0.groupTitle.isEmpty }
        sections.append(Self.section("OPTIONS", options.map(Self.entry) + [Self.entry(label: "-h, --help", text: "Show help information.", discussion: "")]))
        let subcommands = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }
        if !subcommands.isEmpty {
            sections.append(Self.section("SUBCOMMANDS", subcommands.map { Self.entry(label: $0.commandName, text: $0.configuration.abstract, discussion: "") }))
        }
        return sections
    }

    /// The lines `Help:` shows in an error about `definition`: its label and abstract.
    static func errorHelpLine(_ definition: ArgumentDefinition) -> String {
        "Help:  \(definition.label)  \(definition.slot.help.abstract)"
    }

    private static func section(_ title: String, _ entries: [String]) -> String {
        title + ":\n" + entries.joined()
    }

    private static func entry(_ definition: ArgumentDefinition) -> String {
        var text = definition.slot.help.abstract
        if let note = definition.valuesAndDefault { text += (text.isEmpty ? "" : " ") + note }
        return entry(label: definition.helpLabel, text: text, discussion: definition.slot.help.discussion)
    }

    /// `  label` padded to the gutter (or on a line of its own when longer), the text wrapped
    /// beside it, and the discussion below, indented by 8.
    private static func entry(label: String, text: String, discussion: String) -> String {
        var result = "  " + label
        if text.isEmpty {
            result += "\n"
        } else if result.count < labelWidth {
            result += String(repeating: " ", count: labelWidth - result.count)
            result += wrap(text, indent: labelWidth, firstLineUsed: labelWidth) + "\n"
        } else {
            result += "\n" + String(repeating: " ", count: labelWidth) + wrap(text, indent: labelWidth, firstLineUsed: labelWidth) + "\n"
        }
        if !discussion.isEmpty {
            result += String(repeating: " ", count: 8) + wrap(discussion, indent: 8, firstLineUsed: 8) + "\n"
        }
        return result
    }

    /// `text` broken at spaces into lines of at most 80 columns (79 but for a paragraph's last word); the first line starts at column
    /// `firstLineUsed`, the others after `indent` spaces. Newlines in `text` are kept.
    static func wrap(_ text: String, indent: Int, firstLineUsed: Int = 0) -> String {
        var lines: [String] = []
        var column = firstLineUsed
        var line = ""
        let pad = String(repeating: " ", count: indent)
        for (paragraphIndex, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if paragraphIndex > 0 {
                lines.append(line)
                line = ""
                column = indent
            }
            let words = paragraph.split(separator: " ")
            for (wordIndex, word) in words.enumerated() {
                // A word that is not a paragraph's last keeps room for the space after it.
                let room = wordIndex == words.count - 1 ? 0 : 1
                if line.isEmpty {
                    line = String(word)
                    column += word.count
                } else if column + 1 + word.count + room <= width {
                    line += " " + word
                    column += 1 + word.count
                } else {
                    lines.append(line)
                    line = String(word)
                    column = indent + word.count
                }
            }
        }
        lines.append(line)
        return lines.enumerated().map { $0.offset == 0 ? $0.element : ($0.element.isEmpty ? "" : pad + $0.element) }.joined(separator: "\n")
    }
}
