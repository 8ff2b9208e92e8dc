"""`humantrace agents run`: run an agent on our task-conditions and write an agent bundle."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from humantrace.dashboard.cli.common import console, fail

app = typer.Typer(
    help="AI web agents on the humans' task-conditions (BrowserGym), into agent bundles.",
    no_args_is_help=True,
)


@app.command("run")
def run_agents(
    agent: Annotated[
        str,
        typer.Option(
            help="oracle, random, replay, module:factory or path/to/agent.py:factory: a callable "
            "returning an agent with get_action(obs). A module is found as `python -m` finds it "
            "(the current folder first, then sys.path)."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Agent bundle directory (created; a rerun resumes it, skipping finished episodes)."
        ),
    ],
    tasks: Annotated[
        str,
        typer.Option(help="Glob(s) over task ids, comma-separated, e.g. 'shop-*' or 'shop-001,mail-00?'."),
    ] = "*",
    conditions: Annotated[
        str, typer.Option(help="Comma-separated conditions: clean, intervention.")
    ] = "clean,intervention",
    seed: Annotated[
        int | None,
        typer.Option(
            help="Env seed: the instance played (default the study seed, HUMANTRACE_AGENTS_SEED or "
            "42). A framework's reset seed (AgentLab's task_seed) never changes the instance; it is "
            "recorded as task_seed."
        ),
    ] = None,
    max_steps: Annotated[
        int, typer.Option(help="Actions per episode before it is cut off (40, as in the paper).")
    ] = 40,
    workers: Annotated[
        int, typer.Option(help="Worker processes, each with its own browser and humantrace server.")
    ] = 1,
    human: Annotated[
        Path | None, typer.Option(help="With --agent replay: the human reference bundle to replay.")
    ] = None,
    profiles: Annotated[
        str,
        typer.Option(
            help="Comma-separated UI profiles, crossed with tasks and conditions (a site without a "
            "profile skips it); e.g. default,custom-controls. The replay agent keeps each attempt's."
        ),
    ] = "default",
    model: Annotated[
        str | None,
        typer.Option(
            help="The bundle's model column (default: the agent's name or model_name attribute, "
            "else the --agent string, a file by its name: agent.py:factory). Part of each "
            "episode's id, so a rerun must give the same name to resume."
        ),
    ] = None,
    stop_at_first_pass: Annotated[
        bool,
        typer.Option(
            "--stop-at-first-pass",
            help="Training option: end each episode the moment the live state passes (the first_pass "
            "protocol, recorded in the bundle). By default an episode ends as a person's attempt does: "
            "when the agent declares it finished or reports it infeasible, at the step limit or on an "
            "error, and its final state is scored.",
        ),
    ] = False,
) -> None:
    """Run an agent on every selected task-condition; write the agent bundle `compare --agents` reads."""
    from humantrace.agentruns.agents import AgentLoadError, absolute_spec
    from humantrace.agentruns.protocol import FINAL_STATE, FIRST_PASS
    from humantrace.agentruns.runner import RunConfig, RunError, run
    from humantrace.agentruns.server import ServerError
    from humantrace.agentruns.settings import AgentSettings

    chosen = tuple(c.strip() for c in conditions.split(",") if c.strip())
    bad = [c for c in chosen if c not in ("clean", "intervention")]
    if bad or not chosen:
        fail(f"--conditions takes clean and/or intervention, not {conditions!r}.")
    chosen_profiles = tuple(dict.fromkeys(p.strip() for p in profiles.split(",") if p.strip()))
    if not chosen_profiles:
        fail("--profiles names no UI profile (use default, or a site's profile names).")
    if max_steps < 1:
        fail("--max-steps must be at least 1.")
    if model is not None and not model.strip():
        fail("--model needs a name (leave it out to use the agent's own).")
    config = RunConfig(
        agent=absolute_spec(agent),
        out=str(out),
        tasks=tasks,
        conditions=chosen,
        seed=AgentSettings().seed if seed is None else seed,
        max_steps=max_steps,
        workers=workers,
        human=str(human) if human else None,
        profiles=chosen_profiles,
        protocol=FIRST_PASS if stop_at_first_pass else FINAL_STATE,
        model=model.strip() if model else None,
    )
    passed = failed = 0
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        job = bar.add_task("episodes", total=None)

        def started(total: int, done: int) -> None:
            bar.update(job, total=total, completed=done)

        def finished(run_id: str, ok: bool, ended_by: str) -> None:
            nonlocal passed, failed
            passed, failed = passed + ok, failed + (not ok)
            bar.console.print(f"{'pass' if ok else 'fail'}  {run_id}  ({ended_by})", highlight=False)
            bar.advance(job)

        try:
            path = run(config, progress=finished, total=started)
        except (AgentLoadError, RunError, ServerError, FileNotFoundError) as exc:
            fail(str(exc))
    console.print(f"{passed} passed, {failed} failed this run. Agent bundle: {path}", highlight=False)
