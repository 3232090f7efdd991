"""The model-call stack: the judge and its layers (cache, structured output and repair,
retries, limits, transports), call logs and redaction. Nothing here knows of scorers."""
