"""Count the hand-written sync/async parallel lines of a source tree (the review's method).

For every ``async def`` in a hand-written module, find its sync twin (the same name without
the ``a``/``_a`` prefix, or the same method name, in the same module or its sync sibling
module), normalise both bodies (drop comments, blank lines, docstrings, ``async``/``await``;
map ``aX`` names to ``X``, ``AsyncY`` to ``Y``) and count the lines ``difflib`` matches.
Generated modules (first line ``# GENERATED``) are not hand-written and are skipped.

Usage: ``python scripts/parallel_lines.py [SRC_DIR]`` (default ``src/surefoot``).
"""

from __future__ import annotations

import ast
import difflib
import re
import sys
from pathlib import Path

#: ``aX``/``_aX`` names of the async twins, mapped to ``X``/``_X``.
_VERBS = re.compile(
    r"\b(_?)a(?=(call|run|admit|record|release|succeeded|failed|observe|acquire|throttle|sleep"
    r"|invoke|perform|drive|close|spend|refill|report|snapshot|deposit|try_spend|rl_|finish"
    r"|gate|attempt|stream|do|llm|loop|wrap|wrapper|execute|recorded|rrecorded)\b)"
)
_WORDS = (
    (re.compile(r"\basync\s+"), ""),
    (re.compile(r"\bawait\s+"), ""),
    (re.compile(r"\bAsync(?=[A-Z])"), ""),
    (re.compile(r"\b__a(enter|exit|iter|next)__\b"), r"__\1__"),
    (re.compile(r"\bStopAsyncIteration\b"), "StopIteration"),
)


def _norm_name(name: str) -> str:
    for prefix in ("_a", "a"):
        if name.startswith(prefix) and len(name) > len(prefix) + 2:
            return name[: len(prefix) - 1] + name[len(prefix) :]
    return name


def _body(source: list[str], node: ast.AST) -> list[str]:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    start = node.body[0]
    if isinstance(start, ast.Expr) and isinstance(getattr(start, "value", None), ast.Constant):
        first = start.end_lineno or start.lineno
    else:
        first = node.lineno
    end = node.end_lineno or node.lineno
    out = []
    for line in source[first:end]:
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        for pattern, repl in _WORDS:
            text = pattern.sub(repl, text)
        out.append(_VERBS.sub(r"\1", text))
    return out


def _functions(path: Path) -> dict[str, ast.AST]:
    tree = ast.parse(path.read_text())
    found: dict[str, ast.AST] = {}
    methods: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{item.name}"] = item
                    methods.add(id(item))
    for node in ast.walk(tree):  # module functions, and functions nested in functions
        is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        if is_function and id(node) not in methods:
            found.setdefault(node.name, node)
    return found


def _generated(path: Path) -> bool:
    with path.open() as f:
        return f.readline().startswith("# GENERATED")


def measure(root: Path) -> tuple[int, list[tuple[str, str, int]]]:
    rows: list[tuple[str, str, int]] = []
    files = {p: _functions(p) for p in sorted(root.rglob("*.py")) if not _generated(p)}
    for path, funcs in files.items():
        source = path.read_text().splitlines()
        siblings = [path]
        for suffix_from, suffix_to in (("_async", "_sync"), ("_async", "_core")):
            twin = path.with_name(path.name.replace(suffix_from, suffix_to))
            if twin != path and twin in files:
                siblings.append(twin)
        for name, node in funcs.items():
            if not isinstance(node, ast.AsyncFunctionDef):
                continue
            cls, _, short = name.rpartition(".")
            want = _norm_name(short)
            for sib in siblings:
                sib_funcs = files[sib]
                sib_source = sib.read_text().splitlines()
                for cand_name, cand in sib_funcs.items():
                    c_cls, _, c_short = cand_name.rpartition(".")
                    if isinstance(cand, ast.AsyncFunctionDef) or c_short != want:
                        continue
                    if sib == path and cls != c_cls:
                        continue
                    a, b = _body(source, node), _body(sib_source, cand)
                    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
                    same = sum(block.size for block in sm.get_matching_blocks())
                    if same:
                        rel = path.relative_to(root)
                        rows.append((f"{rel}:{name}", f"{sib.relative_to(root)}:{cand_name}", same))
    return sum(r[2] for r in rows), rows


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path("src/surefoot")
    total, rows = measure(root)
    for a, b, n in sorted(rows, key=lambda r: -r[2]):
        print(f"{n:4d}  {a}  ~  {b}")
    print(f"hand-written sync/async parallel lines: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
