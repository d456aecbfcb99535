/// What a command says about itself: its name, its help texts and its subcommands.
package struct CommandConfiguration: Sendable {
    /// The name it is called by (default: the type's name in kebab-case).
    package var commandName: String?
    /// One sentence, shown in its parent's list of subcommands and atop its help.
    package var abstract: String
    /// Paragraphs shown in its help after the abstract.
    package var discussion: String
    /// Its subcommands, in the order its help lists them.
    package var subcommands: [any ParsableCommand.Type]
    /// False for a command its parent's help does not list.
    package var shouldDisplay: Bool

    package init(
        commandName: String? = nil, abstract: String = "", discussion: String = "",
        shouldDisplay: Bool = true, subcommands: [any ParsableCommand.Type] = []
    ) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.shouldDisplay = shouldDisplay
        self.subcommands = subcommands
    }
}
