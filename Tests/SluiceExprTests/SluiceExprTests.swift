// Tests of SluiceExpr.
