// Tests of SluiceServer.
