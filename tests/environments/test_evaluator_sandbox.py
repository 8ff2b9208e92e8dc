"""The expr sandbox: what it refuses at parse time, and what it allows."""

from __future__ import annotations

import pytest

from humantrace.environments.evaluator import UnsafeExpression, compile_expr
from humantrace.environments.evaluator.budget import ExprBudgetExceeded
from humantrace.environments.evaluator.sandbox import run_expr
from humantrace.environments.evaluator.views import MappingView, StateView

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
    ("print(x)", "builtin 'print'"),
    ("(1).real", "attribute access on a literal (.real)"),
    ("'{0.__class__}'.format(x)", "calling the method .format()"),
    ("x.format(state)", "calling the method .format()"),
    ("x.format_map(state)", "calling the method .format_map()"),
    ("x.encode()", "calling the method .encode()"),
    ("datetime.now()", "calling the method .now()"),
    ("date.today()", "calling the method .today()"),
    ("state.model_validate({})", "calling the method .model_validate()"),
    ("x.__len__()", "dunder attribute '__len__'"),
    ("sorted.__self__", "dunder attribute '__self__'"),
    ("(e for e in x).gi_frame", "attribute access on a literal (.gi_frame)"),
    ("f'{x:{x}}'", "f-string format spec"),
    ("f'{x:>99999}'", "f-string format spec"),
    ("lambda: 1", "lambda"),
    ("min(x, default=lambda: 1)", "lambda"),
    ("sorted(x, key=lambda e: e.__class__)", "dunder attribute '__class__'"),
    ("sorted(x, key=lambda *e: 1)", "a key= lambda with other than one plain parameter"),
    ("max(x, key=print)", "builtin 'print'"),
    ("(y := 3)", "walrus"),
    ("1 << 9999", "the << operator"),
    ("~x", "the ~ operator"),
    ("len(*x)", "starred arguments"),
    ("dict(**x)", "keyword unpacking (**)"),
    ("{**x}", "dict unpacking"),
    ("sorted(x, cmp=len)", "keyword argument 'cmp'"),
    ("import os", "invalid syntax"),
    ("os.system('id')", "the name 'os'"),
    ("[c for c in ().__class__.__bases__]", "dunder attribute"),
    ("x()", "calling 'x'"),
    ("(lambda: 1)()", "calling the result of an expression"),
    ("x" + " + x" * 2000, "an expression of 8,001 characters"),
    ("-" * 3000 + "1", "nesting this deep"),
]


@pytest.mark.parametrize(("source", "construct"), REFUSED, ids=[s for s, _ in REFUSED])
def test_unsafe_constructs_are_refused_at_parse_time_naming_the_construct(
    source: str, construct: str
) -> None:
    with pytest.raises(UnsafeExpression) as info:
        compile_expr(source)
    assert construct in str(info.value)
    assert source[:60] in str(info.value)
    assert info.value.instead  # every refusal says what to write instead


@pytest.mark.parametrize(
    ("source", "alternative"),
    [
        ("x.format(state)", "allowed methods are str: capitalize, casefold, center"),
        ("getattr(x, 'y')", "allowed functions: Decimal, abs, all, any"),
        ("sorted(x, cmp=len)", "allowed keyword arguments: day, days, default"),
        ("lambda: 1", "allowed only as key= of sorted(), min() or max()"),
        ("os.system('id')", "names an expression can read: x (the value)"),
        ("f'{x:.2f}'", "use round(x, 2)"),
    ],
)
def test_refusals_name_the_allowed_alternatives(source: str, alternative: str) -> None:
    with pytest.raises(UnsafeExpression) as info:
        compile_expr(source)
    assert alternative in str(info.value)


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
    with pytest.raises(Exception, match="attribute access is only allowed"):
        run("[g.gi_frame for g in [(e for e in a)]]", a=[1])
    with pytest.raises(Exception, match="no field 'missing'"):
        run("a.missing", a=MappingView({"id": 1}))


def test_methods_are_allowed_by_the_runtime_type_of_the_value() -> None:
    with pytest.raises(
        Exception, match=r"int values have no allowed method \.lower\(\); allowed: bit_length"
    ):
        run("x.lower()", x=3)
    with pytest.raises(
        Exception, match=r"list/tuple values have no allowed method \.get\(\); allowed: count, index"
    ):
        run("x.get(1)", x=[1])
    with pytest.raises(Exception, match=r"entity has no method \.split\(\)"):
        run("a.split()", a=MappingView({"id": 1}))
    with pytest.raises(Exception, match=r"str\.join\(\)|function values have no allowed method"):
        run("str.join(',', x)", x=["a"])


def test_string_repetition_is_bounded() -> None:
    with pytest.raises(ExprBudgetExceeded, match="would have 100,000,000 elements"):
        run("'a' * 100000000")


def test_compiled_expressions_are_cached() -> None:
    assert compile_expr("x > 1") is compile_expr("x > 1")


# ---- the safe subset the public task format uses


def test_string_methods_on_values() -> None:
    a = MappingView({"subject": "  Invoice #12 - ACME  ", "tags": "a,b,c"})
    assert run("a.subject.strip().lower().startswith('invoice')", a=a)
    assert run("a.subject.upper().endswith('ACME  ')", a=a)
    assert run("a.tags.split(',')", a=a) == ["a", "b", "c"]
    assert run("a.tags.split(',', maxsplit=1)", a=a) == ["a", "b,c"]
    assert run("a.tags.rsplit(sep=',', maxsplit=1)[-1]", a=a) == "c"
    assert run("a.subject.replace('ACME', 'Acme').strip()", a=a) == "Invoice #12 - Acme"
    assert run("' / '.join(t.upper() for t in a.tags.split(','))", a=a) == "A / B / C"
    assert run("x.title().swapcase()", x="hello world") == "hELLO wORLD"


def test_next_over_a_generator_and_key_functions() -> None:
    state = StateView(
        {"products": [{"id": "p1", "price": 5, "name": "b"}, {"id": "p2", "price": 3, "name": "a"}]}
    )
    assert run("next((p.id for p in state.products if p.price < 4), None)", state=state) == "p2"
    assert run("next((p for p in state.products if p.price > 9), None)", state=state) is None
    assert run("min(state.products, key=lambda p: p.price).id", state=state) == "p2"
    assert run("[p.id for p in sorted(state.products, key=lambda p: p.name, reverse=True)]", state=state) == [
        "p1",
        "p2",
    ]
    assert run("max((p.price for p in state.products), default=0)", state=state) == 5
    assert run("sum(p.price for p in state.products) == 8", state=state)
    assert run("(p.id for p in state.products)", state=state) == [
        "p1",
        "p2",
    ]  # a generator comes out as a list


def test_decimal_and_dates() -> None:
    assert run("Decimal(x) * 3 == Decimal('59.97')", x="19.99")
    assert run("Decimal(x).quantize(Decimal('0.1'))", x="2.46") == run("Decimal('2.5')")
    assert run(
        "datetime.fromisoformat(x) >= session_start",
        x="2026-12-04T10:00:00Z",
        session_start=run("dt('2026-12-04T09:00:00')"),
    )
    assert run(
        "date.fromisoformat(x) < date(2027, 1, 1) and date.fromisoformat(x).month == 12", x="2026-12-24"
    )
    assert run("(date.fromisoformat(x) - date.fromisoformat(v)).days", x="2026-12-24", v="2026-12-04") == 20
    assert run("datetime.strptime(x, '%d/%m/%Y').date().isoformat()", x="04/12/2026") == "2026-12-04"
    assert run("dt(x) + timedelta(hours=2) > dt(v)", x="2026-12-04T10:00:00Z", v="2026-12-04T11:00:00Z")
    assert run("datetime.fromisoformat(x).weekday()", x="2026-12-04T10:00:00") == 4


def test_powers_sets_and_final_alias() -> None:
    assert run("2 ** 10 + 10 ** 2") == 1124
    assert run("set(x) & {2, 3} | {9}", x=[1, 2]) == {2, 9}
    state = StateView({"n": 3})
    assert run("final.n == state.n == 3", state=state)
