"""The prebuilt scorers, each a chain of the public `create_scorer` pipeline (private:
import them from `scorers`)."""
