// SluiceServer: overview and entry points of this module.
