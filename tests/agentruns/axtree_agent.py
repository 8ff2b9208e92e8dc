"""A test agent written only against BrowserGym's public API: it reads the AXTree (flattened by
`browsergym.utils.obs`) and acts by bid with the high-level actions. It knows nothing of
humantrace. It solves "Add one <product> by <brand> to your cart." the way a person would: search
for the product, open it, add it to the cart, say it is done.

    humantrace agents run --agent tests.agentruns.axtree_agent:make --tasks shop-001 --conditions clean
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
