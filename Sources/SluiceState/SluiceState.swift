// SluiceState: overview and entry points of this module.
