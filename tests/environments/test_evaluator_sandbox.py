"""The expr sandbox: what it refuses at parse time, and what it allows."""

from __future__ import annotations

import pytest

from environments.evaluator import UnsafeExpression, compile_expr
from environments.evaluator.sandbox import run_expr
from environments.evaluator.views import MappingView, StateView

REFUSED = [
    ("().__class__", "dunder attribute '__class__'"),
    ("x.__class__.__mro__", "dunder attribute"),
    ("x._data", "private or dunder attribute '_data'"),
    ("__builtins__", "dunder name '__builtins__'"),
    ("__import__('os').system('id')", "dunder name '__import__'"),
    ("getattr(x, 'y')", "builtin 'getattr'"),
    ("open('/etc/passwd').read()", "builtin 'open'"),
    ("state.emails.pop()", "calling the method .pop()"),
    ("open('/etc/passwd')", "builtin 'open'"),
    ("eval('1')", "builtin 'eval'"),
    ("exec('x=1')", "builtin 'exec'"),
    ("type(x)", "builtin 'type'"),
    ("vars()", "builtin 'vars'"),
    ("globals()", "builtin 'globals'"),
    ("''.join(['a'])", "attribute access on a literal (.join)"),
    ("(1).real", "attribute access on a literal (.real)"),
    ("'{0.__class__}'.format(x)", "attribute access on a literal (.format)"),
    ("x.upper()", "calling the method .upper() (write upper(s, ...) instead)"),
    ("x.format(state)", "calling the method .format()"),
    ("f'{x:{x}}'", "f-string format spec"),
    ("lambda: 1", "lambda"),
    ("(y := 3)", "walrus"),
    ("2 ** 1000", "the ** operator"),
    ("1 << 9999", "the << operator"),
    ("len(*x)", "starred arguments"),
    ("sorted(x, key=len)", "keyword argument 'key'"),
    ("import os", "invalid syntax"),
    ("os.system('id')", "the name 'os'"),
    ("[c for c in ().__class__.__bases__]", "dunder attribute"),
    ("x()", "calling 'x'"),
    ("(lambda: 1)()", "calling the result of an expression"),
]


@pytest.mark.parametrize(("source", "construct"), REFUSED, ids=[s for s, _ in REFUSED])
def test_unsafe_constructs_are_refused_at_parse_time_naming_the_construct(source: str, construct: str) -> None:
    with pytest.raises(UnsafeExpression) as info:
        compile_expr(source)
    assert construct in str(info.value)
    assert source in str(info.value)


def run(source: str, **names: object) -> object:
    return run_expr(compile_expr(source), names)


def test_entities_and_states_read_as_attributes_and_keys() -> None:
    state = StateView({"emails": [{"id": "e1", "meta": {"folder": "inbox"}}], "owner": "ada"})
    assert run("state.emails[0].id == state['emails'][0]['id'] == 'e1'", state=state)
    assert run("state.emails[0].meta.folder", state=state) == "inbox"
    assert run("[e.id for e in state.emails if e.get('meta').folder == 'inbox']", state=state) == ["e1"]
    assert run("state.owner", state=state) == "ada"
    assert run("len(state.emails) == 1 and 'emails' in state", state=state)


def test_allowed_builtins_and_comprehensions_work() -> None:
    a = MappingView({"prices": [3, 1, 2]})
    assert run("sorted(a.prices, reverse=True)", a=a) == [3, 2, 1]
    assert run("max(a.prices, default=0) + min(a.prices) + sum(a.prices)", a=a) == 10
    assert run("round(abs(-2.345), 2)", a=a) == 2.35
    assert run("{p: p * 2 for p in a.prices}[3]", a=a) == 6
    assert run("f'{len(a.prices)} items'", a=a) == "3 items"


def test_attribute_reads_on_non_wrappers_fail_at_run_time() -> None:
    with pytest.raises(Exception, match="attribute access is only allowed"):
        run("x.real", x=3)
    with pytest.raises(Exception, match="no field 'missing'"):
        run("a.missing", a=MappingView({"id": 1}))


def test_string_repetition_is_bounded() -> None:
    with pytest.raises(Exception, match="too large"):
        run("'a' * 100000000")


def test_compiled_expressions_are_cached() -> None:
    assert compile_expr("x > 1") is compile_expr("x > 1")
