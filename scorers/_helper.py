"""``python -m scorers._helper``: a model-call helper process (see `scorers._model._process`)."""

from ._model._process import main

if __name__ == "__main__":
    main()
