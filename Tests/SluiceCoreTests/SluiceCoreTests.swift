// Tests of SluiceCore.
