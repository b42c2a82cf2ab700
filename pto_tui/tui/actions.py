"""Every action of a screen, once, grouped by pane: what the palette (ctrl+p) offers and
what `?` lists.

Read from the bindings of the panes (whether focused or not), of the screen and of the app,
with keys.toml applied. Only this app's bindings count: they all have an id (Textual's own,
such as DataTable's cursor keys or ctrl+c copy, have none). A few bindings are the same
action reached from another pane (E/T/B in Context run the Run pane's steps; the log's
cancel and maximise are the Run pane's): they are one entry, with every key that reaches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen

from pto_tui.tui.textual_seams import keyed_bindings

EVERYWHERE = "Everywhere"

_NAMES = {  # Textual's key names that are not what is on the key
    "question_mark": "?",
    "slash": "/",
    "space": "space",
    "escape": "esc",
    "enter": "enter",
    "exclamation_mark": "!",
    "greater_than_sign": ">",
    "less_than_sign": "<",
}


def describe_key(key: str) -> str:
    """A key as a person types it ("?" rather than "question_mark")."""
    return _NAMES.get(key, key)


# binding id -> the id of the same action in another pane (the entry it joins)
ALIASES: dict[str, str] = {
    "context.environment": "run.environment",
    "context.reference": "run.reference",
    "context.baseline": "run.baseline",
    "log.cancel": "run.cancel",
    "log.maximize": "run.maximize",
}

# moving a cursor or a scroll position: listed by `?`, not offered in the palette
NAVIGATION = frozenset(
    {"cursor", "scroll", "scroll_down", "scroll_up", "line", "page", "top", "bottom",
     "history", "complete"}
)


@dataclass
class Action:
    title: str
    action: str  # as bound, e.g. "loop('round')" or "app.quit"
    node: DOMNode  # where the action runs
    group: str  # the pane's title, or EVERYWHERE
    pane_id: str | None  # the pane switched to before the action runs
    keys: list[str] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def navigation(self) -> bool:
        return self.action.partition("(")[0] in NAVIGATION

    @property
    def key_text(self) -> str:
        return ", ".join(describe_key(k) for k in self.keys)


def _bindings(node: DOMNode) -> list[tuple[str, Binding]]:
    """This app's bindings of the node (they have ids), keys.toml applied."""
    return [(key, b) for key, b in keyed_bindings(node) if b.id is not None]


def _target(node: DOMNode, action: str) -> tuple[int, str]:
    """The node an action really runs on (app.quit bound on a screen runs on the app)."""
    namespace, dot, name = action.partition(".")
    if dot and "(" not in namespace:
        node = node.app if namespace == "app" else (node.screen if namespace == "screen" else node)
        action = name
    return id(node), action


def _groups(screen: Screen) -> list[tuple[str, str | None, list[DOMNode]]]:
    """(title, pane id, nodes) in order: the focused pane first, then the others,
    then what works everywhere (the screen and the app)."""
    from pto_tui.tui.screens.project import ProjectScreen  # it imports its panes: when asked

    groups: list[tuple[str, str | None, list[DOMNode]]] = []
    if isinstance(screen, ProjectScreen):
        ordered = sorted(screen.pane_widgets(), key=lambda p: p[0] != screen.current)
        for pane_id, title, widget in ordered:
            groups.append((title, pane_id, list(widget.walk_children(with_self=True))))
        here: list[DOMNode] = [screen]
    else:
        here = [screen, *screen.walk_children()]
    groups.append((EVERYWHERE, None, [*here, screen.app]))
    return groups


def screen_actions(screen: Screen, *, by_pane: bool = False) -> list[Action]:
    """Every action reachable from this screen, once each, in the order of `_groups`.
    by_pane (for `?`): once in each pane that binds it, aliases not joined across panes."""
    by_id: dict[str, Action] = {}
    by_target: dict[tuple[int, str], Action] = {}
    actions: list[Action] = []
    for title, pane_id, nodes in _groups(screen):
        if by_pane:
            by_id, by_target = {}, {}
        for node in nodes:
            for key, binding in _bindings(node):
                assert binding.id is not None
                alias = "" if by_pane else ALIASES.get(binding.id, "")
                target = _target(node, binding.action)
                known = by_id.get(binding.id) or by_id.get(alias) or by_target.get(target)
                if known is None:
                    known = Action(binding.description or binding.action, binding.action,
                                   node, title, pane_id)
                    actions.append(known)
                    by_target[target] = known
                by_id[binding.id] = known
                if binding.id not in known.ids:
                    known.ids.append(binding.id)
                if key not in known.keys:
                    known.keys.append(key)
    if not by_pane:
        for alias, canonical in ALIASES.items():  # an alias met before its canonical id
            if alias in by_id and canonical in by_id and by_id[alias] is not by_id[canonical]:
                _merge(actions, by_id[canonical], by_id[alias])
    return actions


def _merge(actions: list[Action], into: Action, other: Action) -> None:
    into.ids += [i for i in other.ids if i not in into.ids]
    into.keys += [k for k in other.keys if k not in into.keys]
    actions.remove(other)


async def run_action(screen: Screen, action: Action) -> None:
    """From the palette: to the action's pane first, then the action where it is bound."""
    from pto_tui.tui.screens.project import ProjectScreen

    if action.pane_id is not None and isinstance(screen, ProjectScreen):
        await screen.action_show_pane(action.pane_id)
    await screen.app.run_action(action.action, action.node)
