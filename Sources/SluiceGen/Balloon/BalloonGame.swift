/// The balloon-popper game's rules, as kameshsampath/balloon-popper-demo's generator
/// (`packages/common/src/common/stream/models.py`, `GAME_CONFIG`) defines them.
package enum BalloonGame {
    /// A balloon color and the points a pop of it scores.
    package struct Color: Sendable {
        package let name: StaticString
        package let points: Int
    }

    /// The colors balloons come in, with their base scores. A pop picks uniformly among these.
    package static let colors: [Color] = [
        Color(name: "red", points: 100), Color(name: "blue", points: 75), Color(name: "green", points: 60),
        Color(name: "yellow", points: 50), Color(name: "purple", points: 40), Color(name: "brown", points: 35),
        Color(name: "orange", points: 45), Color(name: "pink", points: 55), Color(name: "gold", points: 90),
        Color(name: "grey", points: 70), Color(name: "white", points: 80),
    ]

    /// `black`: a favorite of two characters that no balloon of the color table has. The demo
    /// scores it `colors.get("black", 0)` = 0, doubled to 0 with the bonus flag set; so does this.
    package static let black = Color(name: "black", points: 0)

    /// A cartoon character a player plays as, and the two colors it likes.
    package struct Character: Sendable {
        package let name: StaticString
        /// Indexes into ``colors``, or `-1` for ``black``.
        package let favorites: (Int, Int)
    }

    private static func color(_ name: String) -> Int {
        colors.firstIndex { "\($0.name)" == name } ?? -1
    }

    /// `GAME_CONFIG.character_favorites`.
    package static let characters: [Character] = [
        ("Jerry", "brown", "yellow"), ("Tom", "grey", "blue"), ("Mickey", "red", "black"),
        ("Donald", "blue", "white"), ("Bugs_Bunny", "grey", "orange"), ("Daffy_Duck", "black", "orange"),
        ("SpongeBob", "yellow", "brown"), ("Patrick", "pink", "green"), ("Pikachu", "yellow", "red"),
        ("Mario", "red", "blue"), ("Sonic", "blue", "gold"), ("Woody", "brown", "yellow"),
        ("Buzz", "green", "purple"), ("Scooby", "brown", "green"), ("Popeye", "blue", "red"),
        ("Pink_Panther", "pink", "purple"), ("Road_Runner", "blue", "purple"), ("Tweety", "yellow", "orange"),
    ].map { (name: StaticString, first: String, second: String) in
        Character(name: name, favorites: (color(first), color(second)))
    }

    /// The color at `index` (`-1`: black).
    package static func color(at index: Int) -> Color {
        index < 0 ? black : colors[index]
    }

    /// The score of a pop: the color's points, doubled when it is one of the player's
    /// character's favorites (`score = colors.get(color, 0); if is_favorite_hit: score *= 2`).
    package static func score(colorIndex: Int, isFavorite: Bool) -> Int {
        color(at: colorIndex).points * (isFavorite ? 2 : 1)
    }

    /// The probability that a pop is of one of the character's favorite colors on purpose
    /// (`BONUS_PROBABILITY`, default 0.15); other pops may hit a favorite by chance.
    package static let defaultBonusProbability = 0.15

    /// Player names are an adjective and a noun (`generate_player_name`).
    static let adjectives: [StaticString] = ["Swift", "Bouncy", "Cosmic", "Lucky", "Mighty", "Gentle", "Wild"]
    static let nouns: [StaticString] = ["Balloon", "Cloud", "Star", "Wind", "Phoenix", "Dragon", "Spirit"]
}
