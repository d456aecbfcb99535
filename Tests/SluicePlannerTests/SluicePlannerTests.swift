// Tests of SluicePlanner.
