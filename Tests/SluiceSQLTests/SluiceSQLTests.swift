// Tests of SluiceSQL.
