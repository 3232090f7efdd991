"""The embedded quickstart from Python: BM25 over a small corpus, model-free scorers.

python examples/quickstart.py
"""

from evals import quickstart

result = quickstart.run(progress=False)
print(result.table())
print("\nQuestions whose gold passage BM25 missed:")
for item in result.items:
    if item.scorer_results["id-context-recall"].score < 1:
        print(f"  {item.item.id}: {item.item.input}")
        print(f"      {item.scorer_results['id-context-recall'].reason}")
