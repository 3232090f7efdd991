"""People and the judge: the verdicts a run's judge gave, people's agreement with it (and its gate), and people's agreement with each other."""
