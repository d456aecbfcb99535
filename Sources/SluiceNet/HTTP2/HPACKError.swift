/// Why a header block could not be decoded: each is a connection error of type
/// COMPRESSION_ERROR (RFC 9113 Section 4.3), since the decoder's table is then out of step.
package enum HPACKError: Error, Equatable, Sendable {
    /// The block ended inside a representation.
    case truncated
    /// An integer past 2^31 - 1 (RFC 7541 Section 5.1 leaves its bound to the decoder).
    case integerOverflow
    /// Index 0, or past the static and dynamic tables (Section 2.3.3).
    case invalidIndex(Int)
    /// A Huffman string with a code not in the table, EOS, or bad padding (Section 5.2).
    case invalidHuffmanCode
    /// A dynamic table size update past the size the settings allow, or after the first field
    /// (Section 4.2, 6.3).
    case invalidTableSizeUpdate(Int)
    /// A string longer than the decoder accepts.
    case stringTooLong(Int)
}
