"""The ``expr`` sandbox: an AST allow-list checked once per expression, and a run-time budget.

An expression is parsed in ``eval`` mode and every node is checked before anything runs. Refused,
with :class:`UnsafeExpression` naming the construct and what to write instead: names and
attributes starting with ``_``, statements and imports (they do not parse in eval mode),
``lambda`` except as ``key=``, ``:=``, ``await``/``yield``, starred arguments and ``**`` unpacking,
shifts, ``@``, ``~``, calls of anything but the allow-listed builtins (``allowlist.BUILTINS``),
the allow-listed methods (``allowlist.METHODS``) and the state helpers sites declare
(``environments.state_helpers.state_helper``), keyword arguments outside ``allowlist.KEYWORDS``, reading an
attribute of a literal, and f-string format specs.

The checked tree is then rewritten so that attribute reads and method calls go through the
allow-list by the value's runtime type, and every data-dependent operation goes through a guard of
:mod:`.budget` (comprehension items, arithmetic, comparisons, slices, f-strings); see
docs/evaluator.md for the grammar.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import CodeType
from typing import Any

from humantrace.environments.state_helpers import helper_names

from . import budget
from .allowlist import BUILTINS, KEYWORDS, METHOD_NAMES, METHODS, call_method, read_attribute, to_datetime
from .views import ExprRuntimeError, MappingView, wrap

__all__ = [
    "CONTEXT_NAMES",
    "CompiledExpr",
    "UnsafeExpression",
    "compile_expr",
    "run_expr",
    "template_path",
    "to_datetime",
]

# Names an expression may read besides its own comprehension and lambda variables.
CONTEXT_NAMES = frozenset({"x", "v", "a", "target", "initial", "state", "final", "session_start"})
VIEW_METHODS = frozenset({"get", "keys", "values", "items"})
MAX_SOURCE = 5_000  # characters of one expression
KEY_FUNCTIONS = "sorted(), min() or max()"


class UnsafeExpression(ValueError):
    """An expression uses a construct outside the allow-list (raised before it ever runs)."""

    def __init__(self, source: str, construct: str, instead: str = "") -> None:
        message = f"unsafe expression {source!r}: {construct} is not allowed"
        super().__init__(message + (f"; {instead}" if instead else ""))
        self.source = source
        self.construct = construct
        self.instead = instead


_ALLOWED_NODES: tuple[type[ast.AST], ...] = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Div,
    ast.FloorDiv,
    ast.Mod,
    ast.Pow,
    ast.BitOr,
    ast.BitAnd,
    ast.BitXor,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.UAdd,
    ast.Compare,
    ast.Eq,
    ast.NotEq,
    ast.Lt,
    ast.LtE,
    ast.Gt,
    ast.GtE,
    ast.In,
    ast.NotIn,
    ast.Is,
    ast.IsNot,
    ast.IfExp,
    ast.Call,
    ast.keyword,
    ast.Name,
    ast.Load,
    ast.Store,
    ast.Constant,
    ast.Attribute,
    ast.Subscript,
    ast.Slice,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.ListComp,
    ast.SetComp,
    ast.GeneratorExp,
    ast.DictComp,
    ast.comprehension,
    ast.JoinedStr,
    ast.FormattedValue,
)

_COMPREHENSION = "a comprehension or generator expression"
_NODE_NAMES: dict[type[ast.AST], tuple[str, str]] = {
    ast.Lambda: ("lambda", f"lambda is allowed only as key= of {KEY_FUNCTIONS}; write {_COMPREHENSION}"),
    ast.NamedExpr: ("the walrus operator (:=)", f"bind names with {_COMPREHENSION}"),
    ast.LShift: ("the << operator", "use * and **"),
    ast.RShift: ("the >> operator", "use // and **"),
    ast.Invert: ("the ~ operator", "use -x - 1 or not"),
    ast.Starred: ("starred arguments", "pass the arguments one by one"),
    ast.Await: ("await", "expressions are evaluated synchronously"),
    ast.Yield: ("yield", f"write {_COMPREHENSION}"),
    ast.YieldFrom: ("yield from", f"write {_COMPREHENSION}"),
    ast.MatMult: ("the @ operator", "use * or a comprehension"),
}
_DANGEROUS = frozenset(
    {
        "eval",
        "exec",
        "open",
        "getattr",
        "setattr",
        "__import__",
        "type",
        "vars",
        "globals",
        "locals",
        "compile",
        "dir",
        "delattr",
        "input",
        "print",
        "breakpoint",
        "memoryview",
        "object",
        "super",
        "help",
        "exit",
        "quit",
    }
)
_READS = (
    "x (the value), v (the bijection slot), a (the entity), target, initial, state (alias final), "
    "session_start, and the allowed functions"
)


def _functions() -> str:
    return ", ".join(sorted(BUILTINS))


def _methods() -> str:
    groups = [f"{kind}: {', '.join(sorted(names))}" for kind, names in METHODS.items()]
    groups.append("datetime.fromisoformat/strptime/combine, date.fromisoformat")
    helpers = sorted(helper_names())
    if helpers:
        groups.append(f"state helpers: {', '.join(helpers)}")
    return "allowed methods are " + "; ".join(groups)


@dataclass(frozen=True)
class CompiledExpr:
    """A checked, rewritten and compiled expression."""

    source: str
    code: CodeType
    has_templates: bool
    weight: int  # steps charged once per run (nodes outside comprehension and lambda bodies)


class _Checker(ast.NodeVisitor):
    def __init__(self, source: str, names: frozenset[str]) -> None:
        self.source = source
        self.names = names
        self.bound: set[str] = set()

    def refuse(self, node: ast.AST, what: str | None = None, instead: str = "") -> UnsafeExpression:
        if what is None:
            what, instead = _NODE_NAMES.get(type(node), (f"{type(node).__name__} syntax", ""))
        return UnsafeExpression(self.source, what, instead)

    def generic_visit(self, node: ast.AST) -> None:
        if not isinstance(node, _ALLOWED_NODES):
            raise self.refuse(node)
        super().generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id.startswith("__"):
            raise self.refuse(node, f"the dunder name {node.id!r}", f"names an expression can read: {_READS}")
        if isinstance(node.ctx, ast.Load) and node.id not in self.names | self.bound:
            if node.id in _DANGEROUS:
                raise self.refuse(node, f"the builtin {node.id!r}", f"allowed functions: {_functions()}")
            raise self.refuse(node, f"the name {node.id!r}", f"names an expression can read: {_READS}")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            raise self.refuse(
                node, f"the private or dunder attribute {node.attr!r}", "read fields as a.name or a['name']"
            )
        if isinstance(
            node.value,
            (
                ast.Constant,
                ast.JoinedStr,
                ast.List,
                ast.Tuple,
                ast.Dict,
                ast.Set,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            raise self.refuse(
                node,
                f"attribute access on a literal (.{node.attr})",
                "only methods may be called on literals, e.g. ', '.join(names)",
            )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            if func.id not in BUILTINS:
                self.visit_Name(func)  # refuses unknown or dangerous names with their own message
                raise self.refuse(node, f"calling {func.id!r}", f"allowed functions: {_functions()}")
        elif isinstance(func, ast.Attribute):
            if isinstance(func.value, (ast.Constant, ast.JoinedStr)):
                self.visit(func.value)
            else:
                self.visit(func)  # what the method hangs off is refused first, with its own message
            if func.attr.startswith("_"):
                raise self.refuse(node, f"the private or dunder attribute {func.attr!r}", _methods())
            if func.attr not in METHOD_NAMES | VIEW_METHODS | helper_names():
                raise self.refuse(node, f"calling the method .{func.attr}()", _methods())
        else:
            raise self.refuse(
                node,
                "calling the result of an expression",
                f"call an allowed function by name; allowed functions: {_functions()}",
            )
        for arg in node.args:
            self.visit(arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.refuse(node, "keyword unpacking (**)", "pass keyword arguments by name")
            if keyword.arg not in KEYWORDS:
                raise self.refuse(
                    node,
                    f"the keyword argument {keyword.arg!r}",
                    f"allowed keyword arguments: {', '.join(sorted(KEYWORDS))}",
                )
            if keyword.arg == "key" and isinstance(keyword.value, ast.Lambda):
                self._key_lambda(keyword.value)
            else:
                self.visit(keyword.value)

    def _key_lambda(self, node: ast.Lambda) -> None:
        args = node.args
        if (
            args.posonlyargs
            or args.vararg
            or args.kwonlyargs
            or args.kwarg
            or args.defaults
            or len(args.args) != 1
        ):
            raise self.refuse(
                node, "a key= lambda with other than one plain parameter", "write lambda e: ..."
            )
        name = args.args[0].arg
        if name.startswith("_"):
            raise self.refuse(node, f"the lambda parameter {name!r}", "use a plain name")
        outer = set(self.bound)
        self.bound.add(name)
        self.visit(node.body)
        self.bound = outer

    def visit_Dict(self, node: ast.Dict) -> None:
        if any(key is None for key in node.keys):
            raise self.refuse(node, "dict unpacking ({**d})", "write {k: v for k, v in d.items()}")
        self.generic_visit(node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        if node.format_spec is not None:
            raise self.refuse(node, "an f-string format spec", "use round(x, 2) or str(x) inside the braces")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, bytes) or node.value is Ellipsis:
            raise self.refuse(node, "a bytes or Ellipsis literal", "use a string")

    def _comprehension(self, node: ast.AST) -> None:
        for generator in node.generators:  # type: ignore[attr-defined]  # every comprehension node type has generators; ast has no common base for them
            if generator.is_async:
                raise self.refuse(node, "an async comprehension", f"write {_COMPREHENSION}")
            for target in ast.walk(generator.target):
                if isinstance(target, ast.Name):
                    if target.id.startswith("__"):
                        raise self.refuse(target, f"the dunder name {target.id!r}", "use a plain name")
                    self.bound.add(target.id)
        self.generic_visit(node)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


_SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


# A node that the rewrite routes through a guard costs several plain nodes' time, so it counts for
# more steps; the weights keep a step worth roughly the same CPU time whatever the expression.
_GUARDED_WEIGHT: dict[type[ast.AST], int] = {
    ast.BinOp: 12,
    ast.Call: 12,
    ast.Attribute: 10,
    ast.Compare: 4,
    ast.Subscript: 2,
    ast.JoinedStr: 8,
    ast.FormattedValue: 4,
}


def _count(node: ast.AST) -> int:
    """Steps of evaluating ``node`` once: comprehension and lambda bodies count per item/call."""
    own = _GUARDED_WEIGHT.get(type(node), 1)
    if isinstance(node, _SCOPES):
        return own + _count(node.generators[0].iter)
    if isinstance(node, ast.Lambda):
        return own
    return own + sum(_count(child) for child in ast.iter_child_nodes(node))


TEMPLATE_PREFIX = "{target."


def template_path(text: Any) -> str | None:
    """The dotted path of a string that is exactly one ``{target.path}`` template, else None."""
    if isinstance(text, str) and text.startswith(TEMPLATE_PREFIX) and text.endswith("}"):
        inner = text[len(TEMPLATE_PREFIX) : -1]
        if inner and "{" not in inner and "}" not in inner:
            return inner
    return None


def _call(helper: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Name(helper, ast.Load()), list(args), [])


_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.BitXor: "^",
}


class _Rewriter(ast.NodeTransformer):
    """Route attribute reads, method calls and data-dependent operations through the guards."""

    def __init__(self) -> None:
        self.templates = False

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        path = template_path(node.value)
        if path is None:
            return node
        self.templates = True
        return _call("__ht_template", ast.Constant(path))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        # Literal parts of an f-string must stay constants; only its {fields} are rewritten.
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                part.value = _call("__ht_text", self.visit(part.value))
        return _call("__ht_built", node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if isinstance(node.func, ast.Attribute):
            obj = self.visit(node.func.value)
            args = [self.visit(arg) for arg in node.args]
            keywords = [self.visit(k) for k in node.keywords]
            return ast.Call(
                ast.Name("__ht_method", ast.Load()), [obj, ast.Constant(node.func.attr), *args], keywords
            )
        return self.generic_visit(node)

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        weight = _count(node.body)
        node.body = _call("__ht_tick", ast.Constant(weight), self.visit(node.body))
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        return _call("__ht_attr", self.visit(node.value), ast.Constant(node.attr))

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        left, right = self.visit(node.left), self.visit(node.right)
        return _call("__ht_binop", ast.Constant(_BINOPS[type(node.op)]), left, right)

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        def sized(operand: ast.expr) -> ast.expr:
            operand = self.visit(operand)
            return operand if isinstance(operand, ast.Constant) else _call("__ht_sized", operand)

        node.left = sized(node.left)
        node.comparators = [sized(c) for c in node.comparators]
        return node

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        sliced = isinstance(node.slice, ast.Slice)
        self.generic_visit(node)
        return _call("__ht_built", node) if sliced else node

    def _comprehension(self, node: Any) -> ast.AST:
        generators = node.generators
        body = [node.elt] if hasattr(node, "elt") else [node.key, node.value]
        weights = []
        for i, generator in enumerate(generators):
            following = [generators[i + 1].iter] if i + 1 < len(generators) else body
            weights.append(
                _count(generator.target) + sum(map(_count, generator.ifs)) + sum(map(_count, following))
            )
        self.generic_visit(node)
        for generator, weight in zip(generators, weights):
            generator.iter = _call("__ht_iter", generator.iter, ast.Constant(weight))
        # Each item the comprehension collects counts as built, with everything in it.
        if hasattr(node, "elt"):
            node.elt = _call("__ht_elt", node.elt)
        else:
            node.key, node.value = _call("__ht_elt", node.key), _call("__ht_elt", node.value)
        return node

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


_GUARDS: dict[str, Any] = {
    "__ht_attr": read_attribute,
    "__ht_method": call_method,
    "__ht_binop": budget.guard_binop,
    "__ht_iter": budget.guard_iter,
    "__ht_tick": budget.guard_tick,
    "__ht_sized": budget.guard_sized,
    "__ht_built": budget.guard_built,
    "__ht_elt": budget.guard_element,
    "__ht_text": budget.guard_text,
}


@lru_cache(maxsize=4096)
def compile_expr(source: str, extra_names: frozenset[str] = frozenset()) -> CompiledExpr:
    """Check ``source`` against the allow-list and compile it; results are cached.

    ``extra_names`` adds readable names (a bijection's own ``variable`` name). Raises
    :class:`UnsafeExpression` naming the refused construct and the allowed alternatives, or for a
    syntax error.
    """
    if not isinstance(source, str) or not source.strip():
        raise UnsafeExpression(str(source), "an empty expression", "write a Python expression")
    if len(source) > MAX_SOURCE:
        raise UnsafeExpression(
            source[:60] + "...",
            f"an expression of {len(source):,} characters",
            f"keep it under {MAX_SOURCE:,}",
        )
    try:
        tree = ast.parse(source.strip(), mode="eval")
        _Checker(source, CONTEXT_NAMES | BUILTINS.keys() | extra_names).visit(tree)
        weight = _count(tree.body)
        rewriter = _Rewriter()
        rewritten = ast.fix_missing_locations(rewriter.visit(tree))
        code = compile(rewritten, f"<expr {source[:40]!r}>", "eval")
    except SyntaxError as exc:
        raise UnsafeExpression(
            source, f"invalid syntax ({exc.msg})", "write one Python expression (no statements or imports)"
        ) from None
    except (RecursionError, MemoryError):
        raise UnsafeExpression(source, "nesting this deep", "split the expression") from None
    return CompiledExpr(source=source, code=code, has_templates=rewriter.templates, weight=weight)


def run_expr(compiled: CompiledExpr, names: Mapping[str, Any]) -> Any:
    """Evaluate a compiled expression with ``names`` bound, within a fresh budget.

    Exceptions propagate to the caller, :class:`budget.ExprBudgetExceeded` among them. A result
    that is an iterator (a generator expression, ``zip(...)``) is turned into a list inside the
    budget. A string constant that is exactly a template (``'{target.product_id}'``) reads the
    target value at run time, so task authors may write either form.
    """
    scope: dict[str, Any] = {"__builtins__": {}, **BUILTINS, **_GUARDS, **names}
    if "final" not in names and "state" in names:
        scope["final"] = names["state"]
    if compiled.has_templates:
        target = names.get("target")
        scope["__ht_template"] = lambda path: _template(target, path)
    token = budget.start()
    try:
        budget.current().charge(compiled.weight)
        result = eval(compiled.code, scope)  # noqa: S307 - the tree was checked and guarded
        if isinstance(result, (Iterator, range)):
            result = list(budget.guard_iter(result, 1))
        return result
    except budget.ExprBudgetExceeded as exc:
        budget.note_overrun(f"{compiled.source!r}: {exc}")
        raise
    finally:
        budget.finish(token)


def _template(target: Any, path: str) -> Any:
    from .templates import resolve_path

    if not isinstance(target, MappingView):
        raise ExprRuntimeError(f"template {{target.{path}}} used but no targets are bound")
    return wrap(resolve_path(target._data, path))
