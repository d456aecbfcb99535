import SluiceCore
import Testing

@testable import SluiceLakehouse

@Suite struct XMLTreeTests {
    /// A ListObjectsV2 answer in the shape of the S3 API reference's example.
    static let listing = Array("""
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
          <Name>bucket</Name>
          <Prefix>warehouse/</Prefix>
          <KeyCount>2</KeyCount>
          <MaxKeys>2</MaxKeys>
          <IsTruncated>true</IsTruncated>
          <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
          <Contents>
            <Key>warehouse/a &amp; b.parquet</Key>
            <LastModified>2009-10-12T17:50:30.000Z</LastModified>
            <ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag>
            <Size>434234</Size>
            <StorageClass>STANDARD</StorageClass>
          </Contents>
          <Contents><Key><![CDATA[warehouse/<x>.json]]></Key><Size>0</Size><Owner><ID>x</ID></Owner></Contents>
        </ListBucketResult>
        """.utf8)

    @Test func listingParses() throws {
        let page = try S3ListPage.parse(Self.listing)
        #expect(page.objects == [S3ObjectSummary(key: "warehouse/a & b.parquet", size: 434_234), S3ObjectSummary(key: "warehouse/<x>.json", size: 0)])
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
        let last = try S3ListPage.parse(Array("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>".utf8))
        #expect(last.objects.isEmpty && last.nextContinuationToken == nil)
    }

    @Test func errorDocumentParses() {
        let body = Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchKey</Code><Message>The resource you requested does not exist</Message><Resource>/mybucket/myfoto.jpg</Resource></Error>
            """.utf8)
        #expect(S3ErrorDocument.parse(body) == S3ErrorDocument(code: "NoSuchKey", message: "The resource you requested does not exist"))
        #expect(S3ErrorDocument.parse(Array("<html>oops</html>".utf8)) == nil)
        #expect(S3ErrorDocument.parse([]) == nil)
    }

    @Test func entitiesCommentsAndSelfClosingTags() throws {
        let root = try XMLElement.parse(Array("<!-- c --><a x='1>2' y=\"q\"><b/><c>&#65;&#x42;&lt;&gt;&apos;</c><!DOCTYPE-ish></a>".utf8))
        #expect(root.name == "a" && root.children.map(\.name) == ["b", "c"])
        #expect(root.child("c")?.text == "AB<>'")
    }

    @Test func malformedDocumentsAreErrors() {
        let bad = ["", "<a>", "<a></b>", "</a>", "<a><b></a>", "<a>&bogus;</a>", "<a>&#xFFFFFFFF;</a>", "<a>&amp</a>", "<a/><b/>",
                   "text<a/>", "<a", "<!-- open", "<![CDATA[x]]>", "<a>\u{1}</a", String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)]
        for text in bad {
            #expect(throws: SluiceError.self, "\(text.prefix(40))") { try XMLElement.parse(Array(text.utf8)) }
        }
        #expect(throws: SluiceError.self) { try XMLElement.parse([0x3C, 0x61, 0x3E, 0xFF, 0x3C, 0x2F, 0x61, 0x3E]) }
        #expect(throws: SluiceError.self) { try S3ListPage.parse(Array("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>".utf8)) }
        #expect(throws: SluiceError.self) { try S3ListPage.parse(Array("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>".utf8)) }
        #expect(throws: SluiceError.self) { try S3ListPage.parse(Array("<Error><Code>x</Code></Error>".utf8)) }
    }

    /// Mutated and truncated answers parse or fail with a SluiceError; a trap would end the run.
    @Test func mutatedResponsesNeverTrap() {
        let seeds = [Self.listing, Array("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>".utf8),
                     Array("<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>k</Key><UploadId>VXBsb2FkIElE</UploadId></InitiateMultipartUploadResult>".utf8)]
        var random = SplitMix64(seed: 7)
        var parsed = 0
        var failed = 0
        for _ in 0 ..< 20_000 {
            var bytes = seeds[random.next(below: seeds.count)]
            for _ in 0 ... random.next(below: 3) {
                switch random.next(below: 5) {
                case 0: ByteMutations.overwriteByte(&bytes, random: &random)
                case 1: ByteMutations.deleteRun(&bytes, upTo: 16, random: &random)
                case 2: ByteMutations.duplicateRun(&bytes, upTo: 24, random: &random)
                case 3: ByteMutations.truncate(&bytes, random: &random)
                default:
                    // Markup characters where they do the most damage.
                    guard !bytes.isEmpty else { continue }
                    bytes[random.next(below: bytes.count)] = Array("<>&/;!?[]\"'".utf8)[random.next(below: 11)]
                }
            }
            do {
                _ = try XMLElement.parse(bytes)
                _ = try? S3ListPage.parse(bytes)
                _ = try? S3MultipartResponses.uploadID(bytes)
                _ = S3ErrorDocument.parse(bytes)
                parsed += 1
            } catch {
                failed += 1
            }
        }
        #expect(parsed > 1000 && failed > 1000, "\(parsed) parsed, \(failed) failed")
    }
}
