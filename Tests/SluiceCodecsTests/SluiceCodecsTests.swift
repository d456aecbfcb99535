import Testing

@testable import SluiceCodecs
