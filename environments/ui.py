"""UI profiles: named, deterministic alternative builds of a site's controls (WebPageBench's
"UI variants").

A profile changes how a page offers a function, never what the function does: the state, the API,
the seed builders and the evaluator are the same under every profile, so the same task-condition
can be run on differently built interfaces and compared (a study factor beside the condition).

A site declares its profiles on its `Environment` (`ui_profiles=(UIProfile(...), ...)`); the
default profile, today's interface, is implicit and always exists. An env session carries one
profile (`env_session.ui_profile`); its pages get `<html data-ui-profile="<name>">` and one
`data-ui-<control>="<build>"` attribute per control the profile changes, and templates get `ui`
(`ui.name`, `ui.controls`). The kit's builds of common controls live in `site.js` (`Site.ui(key)`):
`select=custom` (a combobox and listbox in place of a native select), `button=icon` (icon-only
buttons with accessible names) and `confirmation=inline` (confirmations in the page, not toasts);
a site adds its own builds in its templates and script.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from humantrace.environments.registry import Environment

DEFAULT_PROFILE = "default"
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
_CONTROL = re.compile(r"^[a-z][a-z0-9-]{0,29}$")

# The interaction classes a profile can change (WebPageBench's classes of controls), with what
# each covers; `compare` reports pass rate, time and steps by these.
INTERACTION_CLASSES: MappingProxyType[str, str] = MappingProxyType(
    {
        "select": "choosing one of a list of options (native select, custom listbox)",
        "autocomplete": "typing to get suggestions and picking one",
        "date": "entering a date (text field, native date input, calendar picker)",
        "counter": "setting a number (field, stepper buttons)",
        "list": "reaching items of a long list (pagination, load more, infinite scroll)",
        "form": "filling and sending a form (inline, in a modal dialog, in steps)",
        "button": "recognising an action's button (labelled, icon-only with an accessible name)",
        "confirmation": "noticing that an action worked (toast, inline message, dialog)",
        "navigation": "finding a page (top bar, side menu, menu button)",
        "tabs": "switching between views of one page (tabs, sections, accordion)",
    }
)


class UnknownProfile(LookupError):
    """No UI profile of this name on this site."""


@dataclass(frozen=True)
class UIProfile:
    """One build of a site's interface.

    `controls` maps a control key to its build (`{"select": "custom", "list": "load-more"}`): pages
    read them as `data-ui-<key>` on `<html>`. `classes` names the interaction classes it changes.
    """

    name: str
    title: str
    description: str = ""
    controls: dict[str, str] = field(default_factory=dict)
    classes: tuple[str, ...] = ()

    @property
    def attributes(self) -> dict[str, str]:
        """The `<html>` attributes pages of this profile carry."""
        found = {"data-ui-profile": self.name}
        found.update({f"data-ui-{key}": value for key, value in sorted(self.controls.items())})
        return found


DEFAULT = UIProfile(
    name=DEFAULT_PROFILE, title="Default", description="The site as it is built without a profile."
)


def profiles(env: Environment) -> dict[str, UIProfile]:
    """A site's profiles by name, the default first."""
    found = {DEFAULT_PROFILE: DEFAULT}
    found.update({profile.name: profile for profile in env.ui_profiles})
    return found


def profile_names(env_id: str) -> list[str]:
    """The names of a site's profiles, the default first."""
    from humantrace.environments import registry

    return list(profiles(registry.get(env_id)))


def get_profile(env_id: str, name: str | None) -> UIProfile:
    """The site's profile `name` (None or "" is the default); `UnknownProfile` names the choices."""
    from humantrace.environments import registry

    found = profiles(registry.get(env_id))
    key = name or DEFAULT_PROFILE
    if key not in found:
        raise UnknownProfile(f"{env_id} has no UI profile {key!r} (it has: {', '.join(found)})")
    return found[key]


def classes_of(env_id: str, name: str | None) -> tuple[str, ...]:
    """The interaction classes profile `name` of `env_id` changes (none for the default)."""
    return get_profile(env_id, name).classes


def check_profiles(env: Environment) -> list[str]:
    """What is wrong with a site's declared profiles (`humantrace tasks check` reports it)."""
    problems: list[str] = []
    seen: set[str] = set()
    for profile in env.ui_profiles:
        where = f"{env.env_id}: UI profile {profile.name!r}"
        if not _NAME.match(profile.name) or profile.name == DEFAULT_PROFILE:
            problems.append(f"{where}: a name is lower-case letters, digits and '-', not 'default'")
        if profile.name in seen:
            problems.append(f"{where}: declared twice")
        seen.add(profile.name)
        if not profile.controls:
            problems.append(f"{where}: changes no control")
        for key in profile.controls:
            if not _CONTROL.match(key):
                problems.append(f"{where}: control key {key!r} is not lower-case letters, digits and '-'")
        unknown = sorted(set(profile.classes) - set(INTERACTION_CLASSES))
        if unknown:
            problems.append(
                f"{where}: unknown interaction class(es) {', '.join(unknown)} "
                f"(known: {', '.join(INTERACTION_CLASSES)})"
            )
        if not profile.classes:
            problems.append(f"{where}: names no interaction class it changes")
    return problems
