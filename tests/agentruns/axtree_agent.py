"""A test agent written only against BrowserGym's public API: it reads the AXTree (flattened by
`browsergym.utils.obs`) and acts by bid with the high-level actions. It knows nothing of
humantrace. It solves "Add one <product> by <brand> to your cart." the way a person would: search
for the product, open it, add it to the cart, say it is done.

    humantrace agents run --agent tests.agentruns.axtree_agent:make --tasks shop-001 --conditions clean

`make_undo` is the same agent undoing its work: once the charger is in the cart it deletes it
again, then says it is done. Under the humans' protocol that episode fails, with
`passed_midway`; stopped at the first pass it passes.
"""

from __future__ import annotations

import re

from browsergym.utils.obs import flatten_axtree_to_str

LINE = re.compile(r"^\s*\[(?P<bid>[^\]]+)\]\s+(?P<role>\w+)\s+'(?P<name>[^']*)'")


class AXTreeCartAgent:
    name = "axtree-test-agent"

    def __init__(self) -> None:
        self.stage = "search"

    def _nodes(self, obs: dict) -> list[tuple[str, str, str]]:
        text = flatten_axtree_to_str(obs["axtree_object"])
        return [(m["bid"], m["role"], m["name"]) for line in text.splitlines() if (m := LINE.match(line))]

    def get_action(self, obs: dict) -> tuple[str, dict]:
        goal = obs["goal"]
        product = re.match(r"Add one (.+?) by .+ to your cart\.", goal)
        if product is None:
            return "send_msg_to_user('I cannot read this goal.')", {}
        name = product.group(1)
        nodes = self._nodes(obs)
        if self.stage == "search":
            box = next((b for b, role, _ in nodes if role == "searchbox"), None)
            if box is None:
                return "scroll(0, 200)", {"think": "no search box"}
            self.stage = "submit"
            return f"fill({box!r}, {name!r})", {"think": "search for the product"}
        if self.stage == "submit":
            box = next((b for b, role, _ in nodes if role == "searchbox"), None)
            self.stage = "open"
            return f"press({box!r}, 'Enter')", {}
        if self.stage == "open":
            link = next((b for b, role, label in nodes if role == "link" and name in label), None)
            if link is None:
                return "noop(500)", {"think": "waiting for results"}
            self.stage = "add"
            return f"click({link!r})", {}
        if self.stage == "add":
            button = next(
                (
                    b
                    for b, role, label in nodes
                    if role == "button" and label.strip().lower() == "add to cart"
                ),
                None,
            )
            if button is None:
                return "noop(500)", {"think": "waiting for the product page"}
            self.stage = "done"
            return f"click({button!r})", {}
        return "send_msg_to_user('I added it to your cart.')", {}


def make() -> AXTreeCartAgent:
    return AXTreeCartAgent()


class AXTreeUndoAgent(AXTreeCartAgent):
    """Adds the charger, waits until the shop confirms it, opens the cart, deletes the line, waits
    until the cart says it is empty, and says it is done: with `done_action` (e.g. `finish`, one of
    Appendix I's done aliases) instead of `send_msg_to_user` when given."""

    name = "axtree-undo-agent"
    WAITS = 8  # noop(500)s for a page to show what the agent waits for before going on without it

    def __init__(self, done_action: str = "send_msg_to_user") -> None:
        super().__init__()
        self.done_action = done_action
        self.waited = 0

    def _wait(self, why: str) -> tuple[str, dict] | None:
        if self.waited >= self.WAITS:
            return None
        self.waited += 1
        return "noop(500)", {"think": why}

    def get_action(self, obs: dict) -> tuple[str, dict]:
        if self.stage not in ("done", "cart", "delete", "deleted"):
            return super().get_action(obs)
        nodes = self._nodes(obs)
        if self.stage == "done":
            # The shop's toast after the add ("Added to your cart.", a "View cart" button) says the
            # add has landed; its button, else the header's Cart link, opens the cart.
            view = next((b for b, role, label in nodes if role == "button" and label == "View cart"), None)
            if view is None and (wait := self._wait("waiting for the shop to confirm the add")):
                return wait
            link = view or next((b for b, role, label in nodes if role == "link" and label == "Cart"), None)
            self.stage, self.waited = "cart", 0
            return f"click({link!r})", {"think": "open the cart"}
        if self.stage == "cart":
            delete = next((b for b, role, label in nodes if role == "button" and label == "Delete"), None)
            if delete is None and (wait := self._wait("waiting for the cart's lines")):
                return wait
            self.stage, self.waited = "delete", 0
            return f"click({delete!r})", {"think": "changed my mind"}
        if self.stage == "delete":
            empty = any(label == "Your cart is empty" for _, _role, label in nodes)
            if not empty and (wait := self._wait("waiting for the cart to be empty")):
                return wait
            self.stage = "deleted"
        return f"{self.done_action}('I added it to your cart.')", {}


def make_undo() -> AXTreeUndoAgent:
    return AXTreeUndoAgent()
