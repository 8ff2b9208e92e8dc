"""The ``expr`` sandbox: an AST allowlist, checked once per expression and cached.

An expression is parsed in ``eval`` mode and every node is checked against an allowlist before
anything runs. Refused at parse time, with :class:`UnsafeExpression` naming the construct: any
name or attribute starting with an underscore, imports and statements (they do not parse in
eval mode), lambdas, walrus, ``await``/``yield``, starred arguments, ``**``, shifts, calls of
anything but the allowlisted builtins and the read-only methods of our views (``get``, ``keys``,
``values``, ``items``), attribute access on literals (``"".join``, ``(1).real``), and f-string
format specs. Attribute access is rewritten into a helper that only reads fields of our views, so
``x.real`` on a number or ``s.upper`` on a string fails at run time, which the caller reports as
the predicate being false.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import lru_cache
from types import CodeType
from typing import Any

from .views import ExprRuntimeError, MappingView, is_view, wrap

# Names an expression may read besides its own comprehension variables.
CONTEXT_NAMES = frozenset({"x", "v", "a", "target", "initial", "state", "session_start"})
VIEW_METHODS = frozenset({"get", "keys", "values", "items"})
ALLOWED_KEYWORDS = frozenset({"default", "reverse", "start"})
MAX_SEQUENCE = 100_000  # longest string or list a `*` may build


class UnsafeExpression(ValueError):
    """An expression uses a construct outside the allowlist (raised before it ever runs)."""

    def __init__(self, source: str, construct: str) -> None:
        super().__init__(f"unsafe expression {source!r}: {construct} is not allowed")
        self.source = source
        self.construct = construct


def to_datetime(value: Any) -> datetime | None:
    """Parse an ISO-8601 string (or pass a date/datetime) into an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, date):
        parsed = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    else:
        raise ExprRuntimeError(f"dt() needs an ISO date string, got {type(value).__name__}")
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _text(name: str, func: Any) -> Any:
    def apply(value: Any, *args: Any) -> Any:
        if not isinstance(value, str):
            raise ExprRuntimeError(f"{name}() needs a string, got {type(value).__name__}")
        return func(value, *args)

    apply.__name__ = name
    return apply


SAFE_BUILTINS: dict[str, Any] = {
    "len": len,
    "min": min,
    "max": max,
    "sum": sum,
    "any": any,
    "all": all,
    "abs": abs,
    "round": round,
    "sorted": sorted,
    "set": set,
    "list": list,
    "tuple": tuple,
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    # String helpers stand in for str methods, which expressions cannot call.
    "lower": _text("lower", str.lower),
    "upper": _text("upper", str.upper),
    "strip": _text("strip", str.strip),
    "startswith": _text("startswith", str.startswith),
    "endswith": _text("endswith", str.endswith),
    "dt": to_datetime,
    "isclose": lambda a, b: math.isclose(float(a), float(b), abs_tol=0.01),
}


def _attr(obj: Any, name: str) -> Any:
    if is_view(obj):
        return obj.field(name)
    raise ExprRuntimeError(
        f"attribute access is only allowed on entities, states and targets, not on "
        f"{type(obj).__name__} (.{name})"
    )


def _method(obj: Any, name: str, *args: Any, **kwargs: Any) -> Any:
    if isinstance(obj, MappingView):
        return getattr(obj, name)(*args, **kwargs)
    raise ExprRuntimeError(f".{name}() is only allowed on entities, states and targets")


def _mul(left: Any, right: Any) -> Any:
    for seq, count in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
            if len(seq) * max(count, 0) > MAX_SEQUENCE:
                raise ExprRuntimeError("sequence repetition too large")
    return left * right


_HELPERS = {"__ht_attr": _attr, "__ht_method": _method, "__ht_mul": _mul}

_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.BinOp, ast.Add, ast.Sub, ast.Mult,
    ast.Div, ast.FloorDiv, ast.Mod, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd, ast.Compare,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Is, ast.IsNot,
    ast.IfExp, ast.Call, ast.keyword, ast.Name, ast.Load, ast.Store, ast.Constant,
    ast.Attribute, ast.Subscript, ast.Slice, ast.List, ast.Tuple, ast.Set, ast.Dict,
    ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.comprehension,
    ast.JoinedStr, ast.FormattedValue,
)

_NODE_NAMES = {
    ast.Lambda: "lambda", ast.NamedExpr: "the walrus operator (:=)", ast.Pow: "the ** operator",
    ast.LShift: "the << operator", ast.RShift: "the >> operator", ast.Starred: "starred arguments",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
    ast.MatMult: "the @ operator",
}


@dataclass(frozen=True)
class CompiledExpr:
    """A checked, rewritten and compiled expression."""

    source: str
    code: CodeType
    has_templates: bool


def _refuse(source: str, node: ast.AST, what: str | None = None) -> UnsafeExpression:
    construct = what or _NODE_NAMES.get(type(node), f"{type(node).__name__} syntax")
    return UnsafeExpression(source, construct)


class _Checker(ast.NodeVisitor):
    def __init__(self, source: str, names: frozenset[str]) -> None:
        self.source = source
        self.names = names
        self.bound: set[str] = set()

    def generic_visit(self, node: ast.AST) -> None:
        if not isinstance(node, _ALLOWED_NODES):
            raise _refuse(self.source, node)
        super().generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id.startswith("__"):
            raise _refuse(self.source, node, f"the dunder name {node.id!r}")
        if isinstance(node.ctx, ast.Load) and node.id not in self.names | self.bound:
            if node.id in {"eval", "exec", "open", "getattr", "setattr", "__import__", "type",
                           "vars", "globals", "locals", "compile", "dir", "delattr"}:
                raise _refuse(self.source, node, f"the builtin {node.id!r}")
            raise _refuse(self.source, node, f"the name {node.id!r}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            raise _refuse(self.source, node, f"the private or dunder attribute {node.attr!r}")
        if isinstance(node.value, (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict,
                                   ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
                                   ast.GeneratorExp)):
            raise _refuse(self.source, node, f"attribute access on a literal (.{node.attr})")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id not in SAFE_BUILTINS:
                self.visit_Name(func)  # refuses unknown or dangerous names with their own message
                raise _refuse(self.source, node, f"calling {func.id!r}")
        elif isinstance(func, ast.Attribute):
            self.visit(func)  # what the method hangs off is refused first, with its own message
            if func.attr not in VIEW_METHODS:
                hint = f" (write {func.attr}(s, ...) instead)" if func.attr in SAFE_BUILTINS else ""
                raise _refuse(self.source, node, f"calling the method .{func.attr}(){hint}")
        else:
            raise _refuse(self.source, node, "calling the result of an expression")
        for keyword in node.keywords:
            if keyword.arg not in ALLOWED_KEYWORDS:
                raise _refuse(self.source, node, f"the keyword argument {keyword.arg!r}")
        self.generic_visit(node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        if node.format_spec is not None:
            raise _refuse(self.source, node, "an f-string format spec")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, bytes) or node.value is Ellipsis:
            raise _refuse(self.source, node, "a bytes or Ellipsis literal")

    def _comprehension(self, node: ast.AST) -> None:
        for generator in node.generators:  # type: ignore[attr-defined]
            for target in ast.walk(generator.target):
                if isinstance(target, ast.Name):
                    if target.id.startswith("__"):
                        raise _refuse(self.source, target, f"the dunder name {target.id!r}")
                    self.bound.add(target.id)
        self.generic_visit(node)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


TEMPLATE_PREFIX = "{target."


def template_path(text: Any) -> str | None:
    """The dotted path of a string that is exactly one ``{target.path}`` template, else None."""
    if isinstance(text, str) and text.startswith(TEMPLATE_PREFIX) and text.endswith("}"):
        inner = text[len(TEMPLATE_PREFIX):-1]
        if inner and "{" not in inner and "}" not in inner:
            return inner
    return None


class _Rewriter(ast.NodeTransformer):
    """Route attribute reads, view method calls, `*` and templates through guarded helpers."""

    def __init__(self) -> None:
        self.templates = False

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        path = template_path(node.value)
        if path is None:
            return node
        self.templates = True
        return ast.Call(ast.Name("__ht_template", ast.Load()), [ast.Constant(path)], [])

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        # Literal parts of an f-string must stay constants; only its {fields} are rewritten.
        node.values = [self.visit(v) if isinstance(v, ast.FormattedValue) else v for v in node.values]
        return node

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Attribute):
            obj = self.visit(node.func.value)
            args = [self.visit(arg) for arg in node.args]
            keywords = [self.visit(k) for k in node.keywords]
            helper = ast.Name("__ht_method", ast.Load())
            return ast.Call(helper, [obj, ast.Constant(node.func.attr), *args], keywords)
        return self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        obj = self.visit(node.value)
        return ast.Call(ast.Name("__ht_attr", ast.Load()), [obj, ast.Constant(node.attr)], [])

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Mult):
            return ast.Call(ast.Name("__ht_mul", ast.Load()), [node.left, node.right], [])
        return node


@lru_cache(maxsize=4096)
def compile_expr(source: str, extra_names: frozenset[str] = frozenset()) -> CompiledExpr:
    """Check ``source`` against the allowlist and compile it; results are cached.

    ``extra_names`` adds readable names (a bijection's own ``variable`` name). Raises
    :class:`UnsafeExpression` naming the refused construct, or for a syntax error.
    """
    if not isinstance(source, str) or not source.strip():
        raise UnsafeExpression(str(source), "an empty expression")
    try:
        tree = ast.parse(source.strip(), mode="eval")
    except SyntaxError as exc:
        raise UnsafeExpression(source, f"invalid syntax ({exc.msg})") from None
    _Checker(source, CONTEXT_NAMES | SAFE_BUILTINS.keys() | extra_names).visit(tree)
    rewriter = _Rewriter()
    rewritten = ast.fix_missing_locations(rewriter.visit(tree))
    code = compile(rewritten, f"<expr {source[:40]!r}>", "eval")
    return CompiledExpr(source=source, code=code, has_templates=rewriter.templates)


def run_expr(compiled: CompiledExpr, names: Mapping[str, Any]) -> Any:
    """Evaluate a compiled expression with ``names`` bound; exceptions propagate to the caller.

    A string constant that is exactly a template (``'{target.product_id}'``) reads the target
    value at run time, so task authors may write either form.
    """
    scope: dict[str, Any] = {"__builtins__": {}, **SAFE_BUILTINS, **_HELPERS, **names}
    if compiled.has_templates:
        target = names.get("target")
        scope["__ht_template"] = lambda path: _template(target, path)
    return eval(compiled.code, scope)  # noqa: S307 - the tree was checked against the allowlist


def _template(target: Any, path: str) -> Any:
    from .templates import resolve_path

    if not isinstance(target, MappingView):
        raise ExprRuntimeError(f"template {{target.{path}}} used but no targets are bound")
    return wrap(resolve_path(target._data, path))
