"""Task/variant files: schema errors an author can act on; determinism of every registered task."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from humantrace.environments import catalog, checks, registry
from humantrace.environments.schemas import SpecError, load_task, load_variant
from humantrace.environments.seeding import SeedError, build_session_state, resolve_templates
from humantrace.environments.state import state_sha256

GOOD_TASK = Path(__file__).parent / "labsite" / "tasks" / "lab-001.yaml"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def spec_lines(loader, path) -> list[str]:
    with pytest.raises(SpecError) as caught:
        loader(path)
    return caught.value.problems


def test_task_errors_name_file_field_and_expectation(tmp_path):
    text = GOOD_TASK.read_text()
    text = text.replace("difficulty: easy", "difficulty: eazy")
    text = text.replace(
        "      outputs: {note_id: target_note_id}", "      outputz: {note_id: target_note_id}"
    )
    text = text.replace("      desc: the target note is pinned", "      bijection: {ovr: x}")
    text += "colour: blue\n"
    path = write(tmp_path, "shop-003.yaml", text)
    lines = spec_lines(load_task, path)
    assert all(line.startswith(f"{path}: ") for line in lines)
    joined = "\n".join(lines)
    assert "difficulty: got 'eazy', expected one of: easy, medium, hard, expert, frontier" in joined
    assert (
        "seed.steps[1]: extra key 'outputz' is not allowed (expected one of: use, params, outputs)" in joined
    )
    assert (
        "canonical_diff.update[0].bijection: extra key 'ovr' is not allowed (expected one of: over, variable)"
        in joined
    )
    assert "canonical_diff.update[0].bijection: missing required field 'over'" in joined
    assert "(top level): extra key 'colour' is not allowed" in joined


def test_predicate_verbs_and_yaml_syntax_are_checked(tmp_path):
    text = GOOD_TASK.read_text().replace("changes: {pinned: {eq: true}}", "changes: {pinned: {equals: true}}")
    lines = spec_lines(load_task, write(tmp_path, "a.yaml", text))
    assert any("canonical_diff.update[0].changes: pinned: unknown verb 'equals'" in line for line in lines)
    lines = spec_lines(load_task, write(tmp_path, "b.yaml", "task_id: [unclosed\n"))
    assert "line 2" in lines[0] and "invalid YAML" in lines[0]


def test_variant_errors_name_the_injection(tmp_path):
    path = write(
        tmp_path,
        "v.yaml",
        """
variant_id: x-001-v1
base_task_id: x-001
target_primitive: verification
description: d
injections:
  - layer: network
    params: {action: silent_fail, url_pattern: /x, fail_cont: 2}
  - layer: netwrk
    params: {action: x}
  - layer: client
    params: {action: decoy_element}
  - layer: network
    params: {action: teleport, url_pattern: /x, behavior: {mode: every}}
""",
    )
    joined = "\n".join(spec_lines(load_variant, path))
    assert (
        "injections[0].params: extra key 'fail_cont' is not allowed (expected one of: action, url_pattern,"
        in joined
    )
    assert "injections[1]: layer must be one of: seed, server, network, client" in joined
    assert "injections[2].params: decoy_element needs selector" in joined
    assert (
        "injections[3].params.action: got 'teleport', expected one of: delay, error_then_success," in joined
    )
    assert "injections[3].params.behavior: behavior mode 'every' needs k" in joined


def test_templates_keep_types_and_report_missing_paths():
    outputs = {"product": {"id": "p-0001", "tags": ["a", "b"]}, "count": 3}
    assert resolve_templates(
        {"x": "{output.count}", "y": ["{output.product.tags.1}"], "z": "n={output.count}"}, outputs=outputs
    ) == {"x": 3, "y": ["b"], "z": "n=3"}
    with pytest.raises(SeedError, match=r"output.product has no 'name' \(has: id, tags\)"):
        resolve_templates("{output.product.name}", outputs=outputs)


@pytest.fixture
def every_task_condition(lab) -> list[tuple[str, str]]:
    """(task_id, condition) for every task of every registered site, the lab included."""
    loaded = catalog.load_catalog()
    pairs = []
    for task_id in sorted(loaded.tasks):
        pairs.append((task_id, "clean"))
        if catalog.variant_for(task_id):
            pairs.append((task_id, "intervention"))
    return pairs


@pytest.mark.all_sites
def test_every_task_builds_identically_twice_and_in_another_process(every_task_condition, lab_loader_code):
    here = {}
    for task_id, condition in every_task_condition:
        task = catalog.get_task(task_id)
        first = build_session_state(task, condition, 42)
        second = build_session_state(task, condition, 42)
        assert state_sha256(first.state) == state_sha256(second.state), (task_id, condition)
        assert first.targets == second.targets
        here[f"{task_id}/{condition}"] = state_sha256(first.state)
    assert {"lab-001/clean", "lab-001/intervention", "lab-002/clean", "lab-002/intervention"} <= set(here)
    script = (
        lab_loader_code
        + """
import json
from humantrace.environments import catalog
from humantrace.environments.seeding import build_session_state
from humantrace.environments.state import state_sha256
pairs = json.loads(sys.argv[1])
print(json.dumps({p: state_sha256(build_session_state(catalog.get_task(p.split("/")[0]), p.split("/")[1], 42).state)
                  for p in pairs}))
"""
    )
    import json

    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(sorted(here))],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"},
        cwd=Path.cwd(),
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == here


@pytest.mark.all_sites
def test_tasks_check_passes_for_every_site():
    """`humantrace tasks check` finds nothing wrong in the catalogue: every task and variant builds
    deterministically (on seed 7 here; the test above builds every one on 42), its instruction
    renders, its canonical diff and its event names hold, and every UI profile is declared well."""
    problems = [str(p) for p in checks.check_all(seeds=(7,))]
    assert problems == []


def test_seeds_change_the_state_and_the_virtual_clock(lab):
    task = catalog.get_task("lab-001")
    a, b = build_session_state(task, "clean", 1), build_session_state(task, "clean", 2)
    assert state_sha256(a.state) != state_sha256(b.state)
    assert a.session_start != b.session_start and a.session_start.tzinfo is not None


def test_intervention_applies_seed_server_and_network_layers(lab):
    task = catalog.get_task("lab-001")
    clean = build_session_state(task, "clean", 42)
    hard = build_session_state(task, "intervention", 42)
    title = clean.targets["title"]
    decoys = [n.title for n in hard.state.notes if n.title.startswith(title + " (copy")]
    assert len(decoys) == 2  # seed layer, with a {target.title} template in its params
    assert [n.id for n in hard.state.notes] != sorted(n.id for n in hard.state.notes)  # server layer shuffled
    assert [r["action"] for r in hard.network_rules] == ["misleading_success"]
    assert clean.network_rules == [] and clean.client_dispatches == []


def test_check_all_passes_on_good_files_and_reports_bad_ones(lab, tmp_path):
    assert [str(p) for p in checks.check_all() if "lab" in p.file] == []
    # A copy of the lab site with one broken task and one variant naming an unknown builder.
    broken = tmp_path / "labcopy"
    shutil.copytree(Path(lab.__file__).parent, broken)
    (broken / "tasks" / "lab-002.yaml").write_text(
        (broken / "tasks" / "lab-002.yaml")
        .read_text()
        .replace("use: lab.new_title", "use: lab.no_such_builder")
    )
    (broken / "tasks" / "lab-001.yaml").write_text(
        (broken / "tasks" / "lab-001.yaml")
        .read_text()
        .replace("{target.title}", "{target.name}", 1)
        # A misspelled event and a param the event does not carry: both would fail silently.
        .replace(
            '  - event: note_pin\n    params: {note_id: "{target.note_id}", pinned: true}',
            '  - event: note_pinned\n    params: {note_id: "{target.note_id}"}\n'
            '  - any_of:\n      - event: note_pin\n        params: {note: "{target.note_id}"}',
        )
        # Expressions that compile but are over the evaluator's budget on the seeded state: each
        # would fail every attempt (and once took minutes and gigabytes to score).
        .replace(
            "      desc: the target note is pinned\n",
            "      desc: the target note is pinned\n"
            "    - entity: notes\n"
            '      where: {title: {expr: "len(str(x) * 99999) > 0"}}\n'
            "      changes: {}\n"
            "    - entity: notes\n"
            "      changes: {}\n"
            "      bijection: {over: \"['x' * 99999] * 99999\", variable: v}\n"
            "  constraints:\n"
            "    - desc: slots\n"
            '      expr: "len([n for n in initial.notes for i in range(99999)]) > 0"\n'
            "      severity: low\n"
            "  invariant:\n"
            "    - collection: notes\n"
            '      filter: "len([str(a) for i in range(99999)]) > 0"\n',
        )
    )
    from dataclasses import replace

    registry.register(replace(lab.ENVIRONMENT, root=broken), replace=True)
    try:
        problems = [str(p) for p in checks.check_all()]
    finally:
        registry.register(lab.ENVIRONMENT, replace=True)
    assert any(
        "lab-002.yaml: clean seed 42: lab-002 seed.steps[1] (lab.no_such_builder): unknown builder" in p
        for p in problems
    ), problems
    assert any("lab-001: instruction names {target.name}, which the targets lack" in p for p in problems), (
        problems
    )
    assert any(
        "lab-001.yaml: event_conditions[0].event: lab emits no event 'note_pinned' "
        "(it emits: note_create, note_pin, note_view)" in p
        for p in problems
    ), problems
    assert any(
        "lab-001.yaml: event_conditions[1].any_of[0].params.note: event 'note_pin' carries no 'note' "
        "(note_id, pinned)" in p
        for p in problems
    ), problems
    budget = [
        p
        for p in problems
        if "lab-001.yaml: clean seed 42: an expression is over the evaluator's budget" in p
    ]
    for expected in (
        "\"['x' * 99999] * 99999\": the expression built more than 2,000,000 elements",
        "'len(str(x) * 99999) > 0': repeating a str",
        "'len([n for n in initial.notes for i in range(99999)]) > 0': the expression went through more",
        "'len([str(a) for i in range(99999)]) > 0': the expression",
    ):
        assert any(expected in p for p in budget), (expected, budget)


def _row(task_id, env_id, difficulty, primitives, variant_primitive=None, families=()):
    return catalog.TaskSummary(
        task_id=task_id,
        env_id=env_id,
        title=task_id,
        difficulty=difficulty,
        primary_primitives=list(primitives),
        expected_steps=5,
        time_limit_seconds=300,
        variant_id=f"{task_id}-v1" if variant_primitive else None,
        variant_primitive=variant_primitive,
        variant_layers=[f.split(":")[0] for f in families],
        variant_families=list(families),
    )


def test_catalogue_summary_counts_cells_and_names_the_empty_ones():
    rows = [
        _row("a-1", "a", "easy", ["grounding", "planning"], "patience", ["network:delay", "network:delay"]),
        _row("a-2", "a", "easy", ["planning"], "verification", ["client:decoy_element"]),
        _row("b-1", "b", "frontier", ["exploration"]),
    ]
    summary = catalog.summarise_catalogue(rows)
    assert summary.by_difficulty["a"]["easy"] == 2 and summary.by_difficulty["b"]["frontier"] == 1
    assert summary.by_primitive["a"]["planning"] == 2 and summary.by_primitive["a"]["grounding"] == 1
    assert summary.variant_primitives["a"] == {
        **dict.fromkeys(catalog.PRIMITIVES, 0),
        "patience": 1,
        "verification": 1,
    }
    # A variant with two delays counts once for the family.
    assert summary.families == {"client:decoy_element": 1, "network:delay": 1}
    assert "a x medium: no task" in summary.empty and "b x easy: no task" in summary.empty
    assert "a x easy: no task" not in summary.empty and "b x exploration: no task" not in summary.empty
    assert "network:rate_limit" in summary.unused_families and "network:delay" not in summary.unused_families
    assert "server:scramble_timestamps" in catalog.shared_families()


def test_tasks_summary_command_matches_the_task_list():
    import json

    from typer.testing import CliRunner

    from humantrace.dashboard.cli import app

    done = CliRunner().invoke(app, ["tasks", "summary", "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    rows = catalog.list_tasks()
    for env in {r.env_id for r in rows}:
        assert sum(summary["by_difficulty"][env].values()) == sum(r.env_id == env for r in rows)
    with_variant = [r for r in rows if r.variant_id]
    assert sum(summary["families"].values()) >= len(with_variant)  # every variant uses a family or more
    table = CliRunner().invoke(app, ["tasks", "summary"], env={"COLUMNS": "160"})
    assert (
        "Tasks by environment and difficulty" in table.stdout and "Intervention families used" in table.stdout
    )
