/// A type as written: `integer`, `numeric(10, 2)`, `timestamp(3) with time zone`, `int[]`,
/// `STRUCT<a int, b varchar>`, Flink's `ROW<a STRING>`.
///
/// Multi-word names are joined into one canonical name when parsed (`double precision`,
/// `character varying`, `timestamp with time zone`, `time without time zone`); other names
/// are folded like identifiers. ``resolvedDataType()`` maps it to a ``SluiceCore/DataType``.
package struct TypeName: Hashable, Sendable {
    package enum Base: Hashable, Sendable {
        /// A named type: `["int4"]`, `["pg_catalog", "regclass"]`, `["double precision"]`.
        case named(ObjectName)
        /// `STRUCT<…>` or `ROW<…>` (`ROW(…)` as well in Flink).
        case structure([StructTypeField])
    }

    package var base: Base
    /// Type modifiers: `varchar(20)` → `[20]`, `numeric(10, 2)` → `[10, 2]`, `timestamp(3)` → `[3]`.
    package var modifiers: [Int]
    /// Number of array dimensions: `int[]` → 1, `int[][]` and `int ARRAY[]` likewise count brackets.
    package var arrayDimensions: Int
    /// `interval day to second`: the fields of an interval type, if given.
    package var intervalQualifier: IntervalQualifier?
    package var position: SourcePosition

    package init(
        _ base: Base, modifiers: [Int] = [], arrayDimensions: Int = 0, intervalQualifier: IntervalQualifier? = nil,
        at position: SourcePosition = .none
    ) {
        self.base = base
        self.modifiers = modifiers
        self.arrayDimensions = arrayDimensions
        self.intervalQualifier = intervalQualifier
        self.position = position
    }

    /// A simple named type, for tests and built nodes.
    package init(_ name: String, modifiers: [Int] = [], arrayDimensions: Int = 0) {
        self.init(.named(ObjectName(name)), modifiers: modifiers, arrayDimensions: arrayDimensions)
    }

    /// The unqualified name, or `struct`.
    package var simpleName: String {
        switch base {
        case .named(let name): name.name
        case .structure: "struct"
        }
    }
}

/// A field of a struct type.
package struct StructTypeField: Hashable, Sendable {
    package var name: String
    package var type: TypeName

    package init(name: String, type: TypeName) {
        self.name = name
        self.type = type
    }
}
