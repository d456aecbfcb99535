// Tests of SluicePGWire.
