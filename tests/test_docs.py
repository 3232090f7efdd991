"""Every ```python block of README.md and docs/*.md runs verbatim, and every ```sh block
(the shell commands that need nothing but scorekit) too: in a fresh interpreter, in an
empty folder, with no API key and no network.

What a block says it prints is checked: a ``print(...)`` whose trailing comment starts
with a Python literal (``# 1.0``, ``# ['d1', 'd2']``, ``# 0.25, as Ragas documents``),
or that is followed by one comment line holding such a literal alone or before a colon
(``# 1.0: the chunks came from ...``), must print that value (exactly, or
followed by a space and more); a ``print(...)`` followed by comment lines must print
those lines (``...`` in a line stands for any text). A hook installed with ``sitecustomize`` compares each call as it happens.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every block runs in a fresh interpreter

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```(python|sh)\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[str, str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text[: match.start()].count("\n") + 1
            found.append((f"{page.relative_to(ROOT)}:{line}", match.group(1), match.group(2)))
    return found


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", NO_PROXY="*", PYTHONHASHSEED="0")
    env.pop("SCOREKIT_MODEL", None)
    # the `scorekit` script beside this interpreter, whether or not its venv is activated
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


OPTIONAL = {
    "langchain_core": "frameworks",
    "llama_index": "frameworks",
    "haystack": "frameworks",
    "agents": "frameworks",
    "pydantic_ai": "frameworks",
    "pandas": "pandas",
    "pyarrow": "parquet",
    "ray": "ray",
    "opentelemetry": "dev",
}
"""Modules of optional extras: a block that imports one that is missing is skipped."""


def _missing_extra(code: str) -> str | None:
    import importlib.util

    for module in re.findall(r"^(?:from|import) ([\w]+)", code, re.M):
        if module in OPTIONAL and importlib.util.find_spec(module) is None:
            return f"{module} is not installed: pip install 'scorekit[{OPTIONAL[module]}]'"
    return None


BLOCKS = blocks()

_CUTS = re.compile(r"[:,;(—]|\s")


def _literal_prefix(comment: str) -> str | None:
    """The longest start of ``comment`` that is a Python literal (a tuple only when it is
    the whole comment), or None."""
    ends = sorted({m.start() for m in _CUTS.finditer(comment)} | {len(comment)}, reverse=True)
    for end in ends:
        text = comment[:end].strip()
        if not text:
            continue
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, tuple) and end != len(comment):
            continue
        return text
    return None


def expectations(code: str) -> dict[int, list[str]]:
    """``{line of a print call: [what it must print, kind]}`` of a python block (see the
    module's docstring); kind ``"value"`` (a literal) or ``"lines"`` (comment lines)."""
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string[1:].strip()
    lines = code.splitlines()
    found: dict[int, list[str]] = {}
    for node in ast.walk(ast.parse(code)):
        call = node.value if isinstance(node, ast.Expr) else None
        if not (isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print"):
            continue
        end = node.end_lineno or node.lineno
        trailing = comments.get(end)
        if trailing is not None and not lines[end - 1].lstrip().startswith("#"):
            literal = _literal_prefix(trailing)
            if literal is not None:
                found[node.lineno] = [literal, "value"]
            continue
        following = []
        for number in range(end + 1, len(lines) + 1):
            if not lines[number - 1].lstrip().startswith("#"):
                break
            following.append(lines[number - 1].lstrip()[2:].rstrip())
        literal = _literal_prefix(following[0]) if len(following) == 1 else None
        if literal is not None and following[0][len(literal) :][:1] in ("", ":"):
            found[node.lineno] = [literal, "value"]
        elif following:
            found[node.lineno] = ["\n".join(following), "lines"]
    return found


_HOOK = """
import builtins, io, json, os, re, sys, ast
_EXPECTED = {int(k): v for k, v in json.loads(os.environ.pop("SCOREKIT_DOC_EXPECT")).items()}
_print = builtins.print

def _matches(printed, expected, kind):
    if kind == "lines":
        pattern = ".*".join(re.escape(part) for part in expected.split("..."))
        return re.fullmatch(pattern, printed.rstrip("\\n"), re.S) is not None
    text = printed.rstrip("\\n")
    if text == expected or text.startswith(expected + " "):
        return True
    value = ast.literal_eval(expected)
    if isinstance(value, str):
        return text == value or text.startswith(value + " ")
    try:
        return ast.literal_eval(text) == value
    except Exception:
        return False

def print(*args, sep=" ", end="\\n", file=None, flush=False):
    frame = sys._getframe(1)
    expected = _EXPECTED.get(frame.f_lineno) if frame.f_code.co_filename == "<string>" else None
    if expected is None or file not in (None, sys.stdout):
        return _print(*args, sep=sep, end=end, file=file, flush=flush)
    buffer = io.StringIO()
    _print(*args, sep=sep, end=end, file=buffer)
    printed = buffer.getvalue()
    sys.stdout.write(printed)
    if not _matches(printed, *expected):
        raise AssertionError(
            f"line {frame.f_lineno} printed {printed.rstrip()!r}; its comment says {expected[0]!r}"
        )

builtins.print = print
"""


def _checking_env(code: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a python block, with the hook that checks what it prints."""
    env = _env()
    hook = tmp_path / "_doc_hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")]))
    env["SCOREKIT_DOC_EXPECT"] = json.dumps(expectations(code))
    return env


@pytest.mark.parametrize(("where", "kind", "code"), BLOCKS, ids=[b[0] for b in BLOCKS])
def test_the_block_runs_as_written(where: str, kind: str, code: str, tmp_path: Path) -> None:
    missing = _missing_extra(code) if kind == "python" else None
    if missing:
        pytest.skip(missing)
    env = _checking_env(code, tmp_path) if kind == "python" else _env()
    command = (
        [sys.executable, "-c", code]
        if kind == "python"
        else ["bash", "-euo", "pipefail", "-c", code]
    )
    proc = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )
    assert proc.returncode == 0, f"{where} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


def test_every_page_has_blocks_and_the_readme_stays_short() -> None:
    assert len(BLOCKS) >= 20
    assert len((ROOT / "README.md").read_text().splitlines()) <= 620


def test_a_print_comment_states_what_it_prints() -> None:
    code = 'x = 0.5\nprint(x)  # 0.5: half\nprint([1])  # [1]\nprint("a b")\n# a ...\n'
    code += "print(x)  # the value, in prose\n"
    assert expectations(code) == {2: ["0.5", "value"], 3: ["[1]", "value"], 4: ["a ...", "lines"]}
    assert _literal_prefix("0.25, as Ragas documents") == "0.25"
    assert _literal_prefix("{'a': 1.0, 'b': 2}") == "{'a': 1.0, 'b': 2}"
    assert _literal_prefix("failed: 0 < 0.7") is None


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        ("print(0.5)  # 0.5", True),
        ("print(0.0)  # 0.5: wrong", False),
        ("print(1.05)  # 1.0", False),
        ("print([1, 2])  # [1,2]", True),
        ("print('scored')  # 'scored'", True),
        ("print('2 of 3 ok')\n# 2 of ... ok", True),
        ("print('2 of 3 no')\n# 2 of ... ok", False),
    ],
)
def test_a_wrong_printed_value_fails_the_block(code: str, ok: bool, tmp_path: Path) -> None:
    env = _checking_env(code, tmp_path)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert (proc.returncode == 0) is ok, proc.stderr
