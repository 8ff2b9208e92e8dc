"""One import name, `humantrace`: an agent developer's own folders never shadow ours.

An agent developer's project often has folders named `core/`, `environments/`, `cleaning/` or
`exports/`. The installed `humantrace` command run from such a folder, with the developer's agent
module beside them, must run an episode; BrowserGym's id must register our tasks in a fresh process
there; the distribution installs the one top-level name `humantrace`; and the wheel `pip wheel .`
builds installs into a fresh virtual environment whose `humantrace --help` works.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from humantrace.agentruns.agents import AgentLoadError, agent_name, import_factory, load_agent
from humantrace.exports.agent_bundle import read_agent_bundle

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

# The developer's own packages, under the names of ours. Each is importable and used by the agent
# module; none has what our code would look for in ours (`clean`, `catalog`, `compare`, ...).
OWN_PACKAGES = {
    "core": "MARK = 'the developer core'\n",
    "environments": "SITES = ['my-own-site']\n",
    "cleaning": "def scrub(text):\n    return text.strip()\n",
    "exports": "FORMAT = 'my csv'\n",
}
AGENT_MODULE = textwrap.dedent(
    """
    from core import MARK
    from environments import SITES
    from cleaning import scrub
    from exports import FORMAT


    class Agent:
        name = "own-folders-agent"

        def get_action(self, obs):
            return "send_msg_to_user(" + repr(scrub("  " + MARK + " " + SITES[0] + " " + FORMAT)) + ")"


    def factory():
        return Agent()
    """
)


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """An agent developer's folder: their own core/, environments/, cleaning/, exports/ and agent.
    The developer's modules an in-process test imports leave this process's modules afterwards."""
    home = tmp_path / "project"
    for name, source in OWN_PACKAGES.items():
        (home / name).mkdir(parents=True)
        (home / name / "__init__.py").write_text(source, encoding="utf-8")
    (home / "myagent.py").write_text(AGENT_MODULE, encoding="utf-8")
    yield home
    for name in ["myagent", *OWN_PACKAGES]:
        module = sys.modules.get(name)
        if module is not None and str(getattr(module, "__file__", "")).startswith(str(home)):
            del sys.modules[name]


def _env() -> dict[str, str]:
    """This environment without PYTHONPATH: the command finds humantrace through its install only."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"COLUMNS": "200"}


def _run(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.browser
@pytest.mark.timeout(600)
def test_agents_run_from_a_folder_with_its_own_core_environments_cleaning_and_exports(project):
    done = _run(
        [
            str(BIN / "humantrace"),
            "agents",
            "run",
            "--agent",
            "myagent:factory",
            "--tasks",
            "shop-001",
            "--conditions",
            "clean",
            "--out",
            "bundle",
        ],
        cwd=project,
    )
    assert "0 passed, 1 failed this run" in done.stdout
    tables = read_agent_bundle(project / "bundle")
    episode = tables["episodes"].iloc[0]
    assert (episode["model"], episode["task_id"], episode["ended_by"]) == (
        "own-folders-agent",
        "shop-001",
        "message",
    )
    # The agent's message was made with the developer's own four packages.
    actions = tables["actions"]["action"].tolist()
    assert actions == ["send_msg_to_user('the developer core my-own-site my csv')"]


FRESH_GYM = textwrap.dedent(
    """
    import json, gymnasium as gym
    import core, environments  # the developer's own, first on sys.path under `python -c`
    env = gym.make("humantrace.agentruns.gym:browsergym/humantrace.shop-001.clean")
    import humantrace.agentruns.gym
    ids = [i for i in gym.registry if i.startswith("browsergym/humantrace.")]
    print("RESULT " + json.dumps({
        "own": [core.MARK, environments.SITES],
        "ids": len(ids),
        "id": env.spec.id,
        "ours": humantrace.agentruns.gym.__name__,
    }))
    env.close()
    """
)


def test_the_browsergym_id_registers_our_tasks_in_a_fresh_process_beside_own_folders(project):
    done = _run([sys.executable, "-c", FRESH_GYM], cwd=project)
    result = json.loads(next(line[7:] for line in done.stdout.splitlines() if line.startswith("RESULT ")))
    assert result["own"] == ["the developer core", ["my-own-site"]]
    assert result["ids"] > 100 and result["id"] == "browsergym/humantrace.shop-001.clean"
    assert result["ours"] == "humantrace.agentruns.gym"


def test_the_distribution_installs_one_top_level_name():
    distribution = importlib.metadata.distribution("humantrace")
    top_level = (distribution.read_text("top_level.txt") or "").split()
    assert top_level == ["humantrace"]
    owned = sorted(
        name for name, dists in importlib.metadata.packages_distributions().items() if "humantrace" in dists
    )
    assert owned == ["humantrace"]
    script = next(e for e in distribution.entry_points if e.group == "console_scripts")
    assert (script.name, script.value) == ("humantrace", "humantrace.dashboard.cli:app")


@pytest.mark.timeout(600)
def test_the_wheel_installs_into_a_fresh_venv_and_its_command_runs(tmp_path):
    wheels = tmp_path / "wheels"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(ROOT),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
        ],
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("humantrace-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path)
    # The dependencies come from this environment's site-packages, appended by a .pth file: a .pth
    # inside an appended folder is not read, so this checkout's editable install stays out.
    here = next(p for p in map(Path, sys.path) if p.name == "site-packages" and (p / "fastapi").is_dir())
    (fresh_site,) = (venv / "lib").glob("python*/site-packages")
    (fresh_site / "deps.pth").write_text(f"{here}\n", encoding="utf-8")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--no-deps",
            "-q",
            str(wheel),
        ],
        cwd=tmp_path,
    )
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "core").mkdir(parents=True)
    (elsewhere / "core" / "__init__.py").write_text("raise ImportError('the wrong core')\n", encoding="utf-8")
    shown = _run([str(venv / "bin" / "humantrace"), "--help"], cwd=elsewhere)
    assert "Usage: humantrace" in shown.stdout and "agents" in shown.stdout
    # The wheel's humantrace, not this checkout's, with its task files and pages.
    probe = _run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import humantrace, json; from humantrace.environments import catalog; "
            "print(json.dumps([humantrace.__file__, len(catalog.list_tasks())]))",
        ],
        cwd=elsewhere,
    )
    where, tasks = json.loads(probe.stdout.strip().splitlines()[-1])
    assert Path(where).is_relative_to(venv) and tasks == len(list(ROOT.glob("environments/*/tasks/*.yaml")))


def test_an_agent_module_is_found_in_the_current_folder_as_python_m_finds_it(project, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(project))])
    for name in ["myagent", *OWN_PACKAGES]:
        monkeypatch.delitem(sys.modules, name, raising=False)
    agent = load_agent("myagent:factory", seed=1)
    assert agent.name == "own-folders-agent"


def test_an_agent_file_path_loads_the_file_and_names_the_model_by_it(tmp_path, monkeypatch):
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "helper_for_agent.py").write_text("WORD = 'neighbour'\n", encoding="utf-8")
    (tmp_path / "agents" / "file_agent.py").write_text(
        "from helper_for_agent import WORD\n"
        "class A:\n"
        "    def get_action(self, obs):\n"
        "        return WORD\n"
        "def make(seed):\n"
        "    return A()\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in ("file_agent", "helper_for_agent"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    agent = load_agent("agents/file_agent.py:make", seed=3)
    assert agent.get_action({}) == "neighbour"  # it imported the module beside it
    assert agent_name(agent, f"{tmp_path}/agents/file_agent.py:make") == "file_agent.py:make"


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("nosuchmodule_xyz:factory", "no module 'nosuchmodule_xyz' in the current folder ("),
        ("no/such/file.py:factory", "no file "),
        ("json:no_such_factory", "has no callable 'no_such_factory'"),
        ("json", "use one of oracle, random, replay, module:factory or path/to/agent.py:factory"),
        (
            "broken_agent_mod:make",
            "importing broken_agent_mod failed: ModuleNotFoundError: No module named 'not_installed_xyz'",
        ),
    ],
)
def test_an_agent_that_cannot_be_loaded_gets_one_line_naming_what_was_tried(
    tmp_path, monkeypatch, spec, says
):
    (tmp_path / "broken_agent_mod.py").write_text("import not_installed_xyz\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(AgentLoadError) as raised:
        import_factory(spec)
    message = str(raised.value)
    assert says in message and "\n" not in message, message
