import SluiceCore

/// An object in a listing.
package struct S3ObjectSummary: Sendable, Hashable {
    package var key: String
    package var size: Int

    package init(key: String, size: Int) {
        self.key = key
        self.size = size
    }
}

/// One page of a ListObjectsV2 answer.
package struct S3ListPage: Sendable, Hashable {
    package var objects: [S3ObjectSummary]
    /// The token for the next page; nil on the last page.
    package var nextContinuationToken: String?

    package init(objects: [S3ObjectSummary], nextContinuationToken: String?) {
        self.objects = objects
        self.nextContinuationToken = nextContinuationToken
    }

    /// Reads a `ListBucketResult` document (S3 API reference, ListObjectsV2).
    package static func parse(_ body: [UInt8]) throws(SluiceError) -> S3ListPage {
        let root = try XMLElement.parse(body)
        guard root.name == "ListBucketResult" else { throw unexpected(root, "ListBucketResult") }
        var objects: [S3ObjectSummary] = []
        for contents in root.children(named: "Contents") {
            guard let key = contents.child("Key")?.text, let sizeText = contents.child("Size")?.text,
                  let size = Int(sizeText), size >= 0
            else { throw SluiceError(.invalidTextRepresentation, "invalid S3 listing: an entry lacks a valid Key or Size") }
            objects.append(S3ObjectSummary(key: key, size: size))
        }
        let isTruncated = root.child("IsTruncated")?.text == "true"
        let token = root.child("NextContinuationToken")?.text
        if isTruncated && (token ?? "").isEmpty {
            throw SluiceError(.invalidTextRepresentation, "invalid S3 listing: it is truncated but has no NextContinuationToken")
        }
        return S3ListPage(objects: objects, nextContinuationToken: isTruncated ? token : nil)
    }
}

/// An `<Error>` document S3 answers a failed request with.
package struct S3ErrorDocument: Sendable, Hashable {
    package var code: String
    package var message: String?

    package init(code: String, message: String?) {
        self.code = code
        self.message = message
    }

    /// The error in `body`, or nil when it is not an S3 error document (a proxy's HTML page,
    /// nothing at all).
    package static func parse(_ body: [UInt8]) -> S3ErrorDocument? {
        guard !body.isEmpty, let root = try? XMLElement.parse(body), root.name == "Error",
              let code = root.child("Code")?.text, !code.isEmpty
        else { return nil }
        return S3ErrorDocument(code: code, message: root.child("Message")?.text)
    }
}

package enum S3MultipartResponses {
    /// The `UploadId` of an `InitiateMultipartUploadResult`.
    package static func uploadID(_ body: [UInt8]) throws(SluiceError) -> String {
        let root = try XMLElement.parse(body)
        guard root.name == "InitiateMultipartUploadResult" else { throw unexpected(root, "InitiateMultipartUploadResult") }
        guard let id = root.child("UploadId")?.text, !id.isEmpty else {
            throw SluiceError(.invalidTextRepresentation, "invalid S3 answer: InitiateMultipartUploadResult has no UploadId")
        }
        return id
    }

    /// The body of a CompleteMultipartUpload request.
    package static func completionBody(_ parts: [S3CompletedPart]) -> [UInt8] {
        var text = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            text += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(escaped(part.eTag))</ETag></Part>"
        }
        text += "</CompleteMultipartUpload>"
        return Array(text.utf8)
    }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// A part uploaded in a multipart upload: its number (from 1) and the ETag S3 answered.
package struct S3CompletedPart: Sendable, Hashable {
    package var partNumber: Int
    package var eTag: String

    package init(partNumber: Int, eTag: String) {
        self.partNumber = partNumber
        self.eTag = eTag
    }
}

private func unexpected(_ root: XMLElement, _ expected: String) -> SluiceError {
    SluiceError(.invalidTextRepresentation, "invalid S3 answer: expected <\(expected)>, found <\(root.name)>")
}
