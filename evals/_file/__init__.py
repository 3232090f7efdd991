"""The results file: one finished item, the header line, compact lines, model-free details, reading a file back by id, and the append-only writer."""
