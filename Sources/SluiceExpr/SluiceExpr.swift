// SluiceExpr: overview and entry points of this module.
