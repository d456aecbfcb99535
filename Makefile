# Sluice: `make run` serves SQL on 127.0.0.1:4566; `make test` runs every test.
SWIFT ?= swift

.PHONY: run build release test unit
build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

run: release
	.build/release/sluice serve

unit:
	$(SWIFT) test

test: unit
