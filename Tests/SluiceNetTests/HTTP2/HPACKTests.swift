import SluiceCore
import SluiceNet
import Testing

/// HPACK (RFC 7541) against Appendix C's examples, with and without Huffman coding, Huffman
/// round trips, the encoder through the decoder, and blocks it must refuse.
@Suite struct HPACKTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0 ... $0 + 1]), radix: 16)! }
    }

    static func fields(_ list: HPACKHeaderList) -> [String] {
        list.fields.map { "\($0.name): \($0.value)" }
    }

    static func table(_ decoder: HPACKDecoder) -> [String] {
        decoder.dynamicTableEntries.map { "\($0.name): \($0.value)" }
    }

    /// C.2: one field of each representation, decoded alone.
    @Test func singleFieldsOfEachRepresentation() throws {
        var decoder = HPACKDecoder()
        let literalIndexed = try decoder.decode(Self.bytes("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"))
        #expect(Self.fields(literalIndexed) == ["custom-key: custom-header"])
        #expect(Self.table(decoder) == ["custom-key: custom-header"])
        #expect(decoder.dynamicTableSize == 55)

        decoder = HPACKDecoder()
        #expect(Self.fields(try decoder.decode(Self.bytes("040c 2f73 616d 706c 652f 7061 7468"))) == [":path: /sample/path"])
        #expect(decoder.dynamicTableSize == 0)
        #expect(Self.fields(try decoder.decode(Self.bytes("1008 7061 7373 776f 7264 0673 6563 7265 74"))) == ["password: secret"])
        #expect(decoder.dynamicTableSize == 0)
        #expect(Self.fields(try decoder.decode(Self.bytes("82"))) == [":method: GET"])
    }

    static let requests = [
        [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com"],
        [":method: GET", ":scheme: http", ":path: /", ":authority: www.example.com", "cache-control: no-cache"],
        [":method: GET", ":scheme: https", ":path: /index.html", ":authority: www.example.com", "custom-key: custom-value"],
    ]
    static let requestTables = [
        [":authority: www.example.com"],
        ["cache-control: no-cache", ":authority: www.example.com"],
        ["custom-key: custom-value", "cache-control: no-cache", ":authority: www.example.com"],
    ]
    static let requestTableSizes = [57, 110, 164]

    /// C.3 (plain) and C.4 (Huffman): three requests on one connection, sharing its table.
    @Test(arguments: [
        [
            "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "8286 84be 5808 6e6f 2d63 6163 6865",
            "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
        ],
        [
            "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
            "8286 84be 5886 a8eb 1064 9cbf",
            "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
        ],
    ])
    func requestsShareTheDynamicTable(blocks: [String]) throws {
        var decoder = HPACKDecoder()
        for (index, block) in blocks.enumerated() {
            #expect(Self.fields(try decoder.decode(Self.bytes(block))) == Self.requests[index])
            #expect(Self.table(decoder) == Self.requestTables[index])
            #expect(decoder.dynamicTableSize == Self.requestTableSizes[index])
        }
    }

    static let date1 = "date: Mon, 21 Oct 2013 20:13:21 GMT"
    static let date2 = "date: Mon, 21 Oct 2013 20:13:22 GMT"
    static let location = "location: https://www.example.com"
    static let cookie = "set-cookie: foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
    static let responses = [
        [":status: 302", "cache-control: private", date1, location],
        [":status: 307", "cache-control: private", date1, location],
        [":status: 200", "cache-control: private", date2, location, "content-encoding: gzip", cookie],
    ]
    static let responseTables = [
        [location, date1, "cache-control: private", ":status: 302"],
        [":status: 307", location, date1, "cache-control: private"],
        [cookie, "content-encoding: gzip", date2],
    ]
    static let responseTableSizes = [222, 222, 215]

    /// C.5 (plain) and C.6 (Huffman): three answers with a 256-byte table, so entries are evicted.
    @Test(arguments: [
        [
            "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
            "4803 3330 37c1 c0bf",
            "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
        ],
        [
            "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
            "4883 640e ffc1 c0bf",
            "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
        ],
    ])
    func responsesEvictFromASmallTable(blocks: [String]) throws {
        var decoder = HPACKDecoder(maximumTableSize: 256)
        for (index, block) in blocks.enumerated() {
            #expect(Self.fields(try decoder.decode(Self.bytes(block))) == Self.responses[index])
            #expect(Self.table(decoder) == Self.responseTables[index])
            #expect(decoder.dynamicTableSize == Self.responseTableSizes[index])
        }
    }

    /// C.4.1's Huffman strings, encoded as the RFC shows them.
    @Test func huffmanEncodesAsTheRFCShows() {
        var output: [UInt8] = []
        HPACKHuffman.encode(Array("www.example.com".utf8), into: &output)
        #expect(output == Self.bytes("f1e3 c2e5 f23a 6ba0 ab90 f4ff"))
        output = []
        HPACKHuffman.encode(Array("no-cache".utf8), into: &output)
        #expect(output == Self.bytes("a8eb 1064 9cbf"))
        #expect(HPACKHuffman.encodedLength(Array("custom-key".utf8)) == 8)
    }

    /// Every byte value, and random strings, come back as they went in.
    @Test func huffmanRoundTrips() throws {
        var generator = SplitMix64(seed: 7541)
        var inputs: [[UInt8]] = [Array(0 ... 255), [], [0], [255, 255, 255]]
        for _ in 0 ..< 500 {
            inputs.append((0 ..< Int.random(in: 0 ..< 64, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) })
        }
        for input in inputs {
            var encoded: [UInt8] = []
            HPACKHuffman.encode(input, into: &encoded)
            #expect(encoded.count == HPACKHuffman.encodedLength(input))
            var decoded: [UInt8] = []
            try HPACKHuffman.decode(encoded, into: &decoded)
            #expect(decoded == input)
        }
    }

    /// Our answers' blocks decode to what was encoded, with Huffman and without.
    @Test(arguments: [true, false])
    func encoderBlocksDecode(useHuffman: Bool) throws {
        let fields: [(String, String)] = [
            (":status", "200"), (":status", "413"), ("content-type", "application/json"), ("content-length", "12345"),
            ("x-sluice-custom", "a value with spaces"), ("cache-control", "no-store"), ("long", String(repeating: "x", count: 300)),
        ]
        var block: [UInt8] = []
        HPACKEncoder(useHuffman: useHuffman).encode(fields, into: &block)
        var decoder = HPACKDecoder()
        let list = try decoder.decode(block)
        #expect(list.fields.map { "\($0.name)=\($0.value)" } == fields.map { "\($0.0)=\($0.1)" })
        #expect(decoder.dynamicTableSize == 0)
    }

    /// Malformed blocks are refused with the reason, never trapped on.
    @Test func malformedBlocksAreRefused() {
        func error(_ hex: String, maximumTableSize: Int = 4096) -> HPACKError? {
            var decoder = HPACKDecoder(maximumTableSize: maximumTableSize)
            do throws(HPACKError) {
                _ = try decoder.decode(Self.bytes(hex))
                return nil
            } catch {
                return error
            }
        }
        #expect(error("80") == .invalidIndex(0))
        #expect(error("be") == .invalidIndex(62))
        #expect(error("ff80 8080 8080 8080 01") == .integerOverflow)
        #expect(error("ff") == .truncated)
        #expect(error("4005 6162") == .truncated)
        // A Huffman string holding EOS (30 ones), and one padded with a zero bit.
        #expect(error("0085 ffff fffc ff") == .invalidHuffmanCode)
        #expect(error("0081 00") == .invalidHuffmanCode)
        #expect(error("0281 fe") == .invalidHuffmanCode)
        // A table size update past the settings' maximum, and one after a field.
        #expect(error("3fe2 1f") == .invalidTableSizeUpdate(4097))
        #expect(error("823f e11f") == .invalidTableSizeUpdate(4096))
        #expect(error("3fe1 1f82") == nil)
    }

    /// A header list past the bound is marked and cut, but the whole block still updates the
    /// table (the next block depends on it).
    @Test func headerListsPastTheBoundAreCut() throws {
        var decoder = HPACKDecoder()
        var block: [UInt8] = []
        // A literal added to the table, then the same entry indexed a hundred times.
        block += [0x40, 0x03] + Array("big".utf8)
        HPACKEncoder.writeInteger(1000, prefix: 7, flags: 0, into: &block)
        block += [UInt8](repeating: UInt8(ascii: "v"), count: 1000)
        block += [UInt8](repeating: 0xbe, count: 100)
        let list = try decoder.decode(block, maximumListSize: 8 << 10)
        #expect(list.isTooLarge)
        #expect(list.fields.count == 7)
        #expect(Self.table(decoder) == ["big: " + String(repeating: "v", count: 1000)])
        // The table stays in step: the next block's index 62 is that entry.
        #expect(try decoder.decode([0xbe]).fields.count == 1)
    }
}
