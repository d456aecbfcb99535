// Masking secrets in free text: error messages, statuses and log lines, which may quote an
// option's value or a URL with its password.

extension SecretOptions {
    /// `text` with every occurrence of `values` (from ``secretValues(of:)``) and every URL
    /// password masked.
    /// - Complexity: O(n·v) for n bytes of text and v values.
    package static func maskingSecrets(in text: String, values: [String]) -> String {
        let searched = values.filter { $0.utf8.count >= shortestSearchedValue }
        // Statuses are read every second by the dashboard: text of a pipeline without secrets
        // is not copied.
        guard !searched.isEmpty else { return URLCredentials.masking(in: text) }
        var bytes = Array(text.utf8)
        var changed = false
        for value in searched {
            let needle = Array(value.utf8)
            guard bytes.count >= needle.count else { continue }
            var result: [UInt8] = []
            var copied = 0
            var index = 0
            while index + needle.count <= bytes.count {
                if bytes[index] == needle[0] && bytes[index ..< index + needle.count].elementsEqual(needle) {
                    result += bytes[copied ..< index]
                    result += mask.utf8
                    index += needle.count
                    copied = index
                } else {
                    index += 1
                }
            }
            if copied > 0 {
                result += bytes[copied...]
                bytes = result
                changed = true
            }
        }
        return URLCredentials.masking(in: changed ? String(decoding: bytes, as: UTF8.self) : text)
    }
}

extension SluiceError {
    /// The same error with `values` (from ``SecretOptions/secretValues(of:)``) and URL passwords
    /// masked in its message, detail, hint and context.
    package func maskingSecrets(_ values: [String]) -> SluiceError {
        var copy = self
        copy.message = SecretOptions.maskingSecrets(in: message, values: values)
        copy.detail = detail.map { SecretOptions.maskingSecrets(in: $0, values: values) }
        copy.hint = hint.map { SecretOptions.maskingSecrets(in: $0, values: values) }
        copy.context = context.map { SecretOptions.maskingSecrets(in: $0, values: values) }
        return copy
    }
}
