"""`--profiles`: which UI profiles each environment's base tasks are crossed with.

Profiles are per site (`environments.ui`): a lead names them in one list, where a bare name applies
to every environment of the plan and `env:name` to that environment only. So
`default,icon-buttons` runs every site on both (each must declare `icon-buttons`), and
`default,shop:custom-controls,mail:side-menu` runs every site on the default, plus shop on
`custom-controls` and mail on `side-menu`. A bare name a site does not declare is an error that
names the site's profiles and suggests the `env:name` form; so is an `env:name` whose site does
not declare it or is not in the plan. The caller passes the sites' declarations in (this package
does not import the environments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from humantrace.annotators.planning.errors import PlanInfeasible
from humantrace.annotators.planning.schemas import DEFAULT_PROFILE


def resolve_profiles(
    spec: Sequence[str] | None, *, envs: Sequence[str], declared: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Each env's profiles from a `--profiles` list (None or empty: the default everywhere).

    `declared` maps each env to the names of its site's profiles (the default included). Raises
    `PlanInfeasible("unknown_profile", ...)` naming the site's profiles when a name does not fit.
    """
    items = [item.strip() for item in spec or () if item.strip()]
    if not items:
        return {env: (DEFAULT_PROFILE,) for env in envs}
    found: dict[str, list[str]] = {env: [] for env in envs}
    for item in items:
        env, _, name = item.rpartition(":")
        targets = [env] if env else list(envs)
        if env and env not in found:
            raise PlanInfeasible(
                "unknown_profile",
                f"--profiles {item}: {env} is not in this plan (its envs: {', '.join(envs)})",
            )
        for target in targets:
            have = list(declared.get(target, (DEFAULT_PROFILE,)))
            if name not in have:
                hint = "" if env else f"; to use it only where it exists, write it as <env>:{name}"
                raise PlanInfeasible(
                    "unknown_profile",
                    f"--profiles {item}: {target} has no UI profile {name!r} (it has: {', '.join(have)}){hint}",
                )
            if name not in found[target]:
                found[target].append(name)
    empty = [env for env, names in found.items() if not names]
    if empty:
        raise PlanInfeasible(
            "unknown_profile",
            f"--profiles names no profile for {', '.join(empty)}; add 'default' (every site has it) "
            f"or one of their own as <env>:<name>",
        )
    return {env: tuple(names) for env, names in found.items()}
