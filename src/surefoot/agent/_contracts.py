"""Contracts: pre- and post-conditions over an action's arguments and result.

A clause is a Python expression, parsed with :mod:`ast` when the action is declared and
evaluated by a small interpreter over that tree, never by :func:`eval`. What a clause may use:

- names bound to the action's parameters (and ``result`` in a post-condition), the constants
  ``True``/``False``/``None``, and the type names ``str int float bool list dict tuple set``;
- literals, tuples/lists/sets/dicts, comparisons (chains too), ``and``/``or``/``not``,
  ``x if c else y``, arithmetic, subscripts and slices, comprehensions;
- attribute access to names that do not start with ``_``;
- calls to ``len min max abs all any sum round sorted isinstance str int float bool``, and to
  the read-only methods of ``str`` (``startswith``, ``lower``... not ``format``) and
  ``get keys values items count index`` of containers.

A clause that does not parse, uses another construct or an unknown name is refused with a
``ValueError`` naming it, at declaration. Sizes are bounded (``**`` exponents, repeated
sequences), so a clause cannot exhaust memory.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["Contract", "ContractEvalError", "parse_contracts"]

_FUNCS: Final[dict[str, Callable[..., Any]]] = {
    "len": len,
    "min": min,
    "max": max,
    "abs": abs,
    "all": all,
    "any": any,
    "sum": sum,
    "round": round,
    "sorted": sorted,
    "isinstance": isinstance,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
}
_TYPES: Final[dict[str, Any]] = {
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "set": set,
}
_STR_METHODS: Final = frozenset(
    name
    for name in dir(str)
    if not name.startswith("_") and name not in {"format", "format_map", "maketrans"}
)
_CONTAINER_METHODS: Final = frozenset({"get", "keys", "values", "items", "count", "index"})
_BINOPS: Final[dict[type[ast.operator], Callable[[Any, Any], Any]]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: Final[dict[type[ast.unaryop], Callable[[Any], Any]]] = {
    ast.Not: operator.not_,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
_CMPS: Final[dict[type[ast.cmpop], Callable[[Any, Any], Any]]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_ALLOWED: Final = (
    ast.Expression,
    ast.Constant,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Dict,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.BinOp,
    ast.Compare,
    ast.IfExp,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.Call,
    ast.keyword,
    ast.ListComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.DictComp,
    ast.comprehension,
    *_BINOPS,
    *_UNARY,
    *_CMPS,
)
#: Public attribute names that still reach an interpreter's internals: refused.
_UNSAFE_ATTRS: Final = frozenset(
    {
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "tb_frame",
        "tb_next",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "co_code",
        "func_globals",
        "mro",
    }
)
_MAX_POW: Final = 1000
_MAX_LEN: Final = 100_000


class ContractEvalError(Exception):
    """A clause refused a value at evaluation time (a size bound, a call not allowed)."""


@dataclass(frozen=True, slots=True)
class Contract:
    """One parsed clause: ``kind`` (``"pre"``/``"post"``), its text, and the names it reads."""

    kind: str
    expression: str
    tree: ast.Expression
    names: tuple[str, ...]

    def evaluate(self, bindings: Mapping[str, Any]) -> Any:
        """The clause's value with ``bindings``; raises what the evaluation raises."""
        return _Eval(bindings).run(self.tree.body)

    def seen(self, bindings: Mapping[str, Any]) -> dict[str, Any]:
        """The bindings this clause reads (what a violation reports)."""
        return {n: bindings[n] for n in self.names if n in bindings}


def parse_contracts(
    kind: str, clauses: str | Iterable[str] | None, known: Iterable[str], where: str
) -> tuple[Contract, ...]:
    """Parse and check ``clauses``; ``known`` are the names they may read; ``where`` names the
    action in errors. Raises ``ValueError`` naming the clause and what is wrong with it."""
    if clauses is None:
        return ()
    items = [clauses] if isinstance(clauses, str) else list(clauses)
    names = set(known)
    out: list[Contract] = []
    for clause in items:
        if not isinstance(clause, str) or not clause.strip():
            raise ValueError(f"{kind}-condition {clause!r} of {where} must be a non-empty str")
        text = clause.strip()
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise ValueError(
                f"{kind}-condition {text!r} of {where} does not parse as a Python expression: "
                f"{exc.msg}"
            ) from None
        out.append(Contract(kind, text, tree, _check(tree, names, kind, text, where)))
    return tuple(out)


def _check(
    tree: ast.Expression, known: set[str], kind: str, text: str, where: str
) -> tuple[str, ...]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    bound.add(target.id)
                elif not isinstance(target, (ast.Tuple, ast.Store)):
                    raise ValueError(
                        f"{kind}-condition {text!r} of {where}: a comprehension target must be "
                        "a name or a tuple of names"
                    )
    used: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ValueError(
                f"{kind}-condition {text!r} of {where} uses {type(node).__name__}, which "
                "contracts do not allow; use comparisons, boolean and arithmetic operators, "
                "subscripts and calls to len/min/max/abs/all/any/isinstance or str methods"
            )
        if isinstance(node, ast.Attribute) and (
            node.attr.startswith("_") or node.attr in _UNSAFE_ATTRS
        ):
            raise ValueError(
                f"{kind}-condition {text!r} of {where} reads the attribute "
                f"{node.attr!r}; contracts may not read private or internal attributes"
            )
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            name = node.id
            if name in known or name in bound:
                if name in known and name not in used:
                    used.append(name)
            elif name not in _FUNCS and name not in _TYPES:
                allowed = ", ".join(sorted(known)) or "none"
                raise ValueError(
                    f"{kind}-condition {text!r} of {where} reads the unknown name {name!r}; "
                    f"it may read {allowed}"
                )
    return tuple(used)


class _Eval:
    __slots__ = ("env",)

    def __init__(self, bindings: Mapping[str, Any]) -> None:
        self.env: dict[str, Any] = {**_FUNCS, **_TYPES, **bindings}

    def run(self, node: ast.expr) -> Any:
        method: Callable[[Any], Any] | None = getattr(self, "_" + type(node).__name__, None)
        if method is None:  # pragma: no cover - refused at declaration
            raise ContractEvalError(f"{type(node).__name__} is not allowed in a contract")
        return method(node)

    def _Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _Name(self, node: ast.Name) -> Any:
        try:
            return self.env[node.id]
        except KeyError:
            raise NameError(f"name {node.id!r} is not bound") from None

    def _Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self.run(e) for e in node.elts)

    def _List(self, node: ast.List) -> Any:
        return [self.run(e) for e in node.elts]

    def _Set(self, node: ast.Set) -> Any:
        return {self.run(e) for e in node.elts}

    def _Dict(self, node: ast.Dict) -> Any:
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                out.update(self.run(v))
            else:
                out[self.run(k)] = self.run(v)
        return out

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for e in node.values:
            value = self.run(e)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        return _UNARY[type(node.op)](self.run(node.operand))

    def _BinOp(self, node: ast.BinOp) -> Any:
        left, right = self.run(node.left), self.run(node.right)
        op = type(node.op)
        if op is ast.Pow and isinstance(right, (int, float)) and abs(right) > _MAX_POW:
            raise ContractEvalError(f"exponent {right!r} is over the contract bound {_MAX_POW}")
        if op is ast.Mult:
            for seq, n in ((left, right), (right, left)):
                if (
                    isinstance(seq, (str, bytes, list, tuple))
                    and isinstance(n, int)
                    and len(seq) * n > _MAX_LEN
                ):
                    raise ContractEvalError("a repeated sequence is over the contract bound")
        return _BINOPS[op](left, right)

    def _Compare(self, node: ast.Compare) -> Any:
        left = self.run(node.left)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = self.run(comp)
            if not _CMPS[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self.run(node.body) if self.run(node.test) else self.run(node.orelse)

    def _Attribute(self, node: ast.Attribute) -> Any:
        if node.attr.startswith("_") or node.attr in _UNSAFE_ATTRS:  # pragma: no cover
            raise ContractEvalError(f"private attribute {node.attr!r}")
        return getattr(self.run(node.value), node.attr)

    def _Subscript(self, node: ast.Subscript) -> Any:
        return self.run(node.value)[self.run(node.slice)]

    def _Slice(self, node: ast.Slice) -> Any:
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else self.run(p) for p in parts))

    def _Call(self, node: ast.Call) -> Any:
        fn = self._callee(node.func)
        args = [self.run(a) for a in node.args]
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ContractEvalError("**kwargs in a contract call")
            kwargs[kw.arg] = self.run(kw.value)
        return fn(*args, **kwargs)

    def _callee(self, func: ast.expr) -> Callable[..., Any]:
        if isinstance(func, ast.Name) and func.id in _FUNCS and func.id not in self._shadowed():
            return _FUNCS[func.id]
        if isinstance(func, ast.Attribute):
            owner = self.run(func.value)
            name = func.attr
            if isinstance(owner, str) and name in _STR_METHODS:
                return getattr(owner, name)  # type: ignore[no-any-return]
            if isinstance(owner, (dict, list, tuple)) and name in _CONTAINER_METHODS:
                method: Callable[..., Any] | None = getattr(owner, name, None)
                if method is not None:
                    return method
            raise ContractEvalError(
                f"calling {name!r} on a {type(owner).__name__} is not allowed in a contract"
            )
        shown = ast.unparse(func)
        raise ContractEvalError(
            f"calling {shown!r} is not allowed in a contract; only "
            f"{', '.join(sorted(_FUNCS))} and str methods"
        )

    def _shadowed(self) -> set[str]:
        return {k for k, v in self.env.items() if k in _FUNCS and v is not _FUNCS[k]}

    def _comp(self, generators: list[ast.comprehension], emit: Callable[[], None]) -> None:
        def loop(i: int) -> None:
            if i == len(generators):
                emit()
                return
            gen = generators[i]
            for item in self.run(gen.iter):
                self._bind(gen.target, item)
                if all(self.run(cond) for cond in gen.ifs):
                    loop(i + 1)

        saved = dict(self.env)
        try:
            loop(0)
        finally:
            self.env = saved

    def _bind(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
            return
        assert isinstance(target, ast.Tuple)
        values = tuple(value)
        if len(values) != len(target.elts):
            raise ValueError(f"cannot unpack {len(values)} values into {len(target.elts)} names")
        for t, v in zip(target.elts, values, strict=True):
            self._bind(t, v)

    def _ListComp(self, node: ast.ListComp) -> Any:
        out: list[Any] = []
        self._comp(node.generators, lambda: out.append(self.run(node.elt)))
        return out

    _GeneratorExp = _ListComp

    def _SetComp(self, node: ast.SetComp) -> Any:
        out: set[Any] = set()
        self._comp(node.generators, lambda: out.add(self.run(node.elt)))
        return out

    def _DictComp(self, node: ast.DictComp) -> Any:
        out: dict[Any, Any] = {}

        def emit() -> None:
            out[self.run(node.key)] = self.run(node.value)

        self._comp(node.generators, emit)
        return out
