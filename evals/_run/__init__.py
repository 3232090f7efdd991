"""A run of labelled items: its options, its items read and turned into jobs, the target called, each finished item kept, resumed and sharded, its progress shown (`arun_evals` in `_runner`)."""
