"""``python -m scorers._helper``: a model-call helper process (see `scorers._transport`)."""

from ._transport import main

if __name__ == "__main__":
    main()
