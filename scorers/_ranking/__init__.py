"""IR ranking: trec_eval's measures over many queries (one vectorised kernel), TREC files,
and runs compared with paired tests."""
