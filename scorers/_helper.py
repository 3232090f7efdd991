"""``python -m scorers._helper``: a model-call helper process (see `scorers._process`)."""

from ._process import main

if __name__ == "__main__":
    main()
