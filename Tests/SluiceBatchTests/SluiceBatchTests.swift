// Tests of SluiceBatch.
