"""Keys reach the widget that has the focus when they are handled, in the order typed.

Textual forwards a key to the widget focused when the app reads it, and a focus change
made by a handler (enter in a field, tab) is itself queued behind the keys already read:
a burst (a paste, bursty SSH input, fast typing while a job streams) put keys meant for
the next field into the previous one. The gate hands keys over one at a time: the next
is forwarded only once the focused widget and its ancestors handled the last one and
the app ran the focus changes their handlers asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App
from textual.dom import DOMNode
from textual.message_pump import MessagePump

SETTLE_TIMEOUT = 2.0  # seconds a handler may hold the next key back (a stuck one never blocks)


class KeyGate:
    def __init__(self, app: App[Any], dispatch: Callable[[events.Event], Awaitable[None]],
                 drop: Callable[[events.Event], bool] = lambda _event: False) -> None:
        self.app = app
        self.dispatch = dispatch  # the app's own handling of an input event
        self.drop = drop  # checked when the key is handled: True drops it (forms.py)
        self.queue: deque[events.Event] = deque()
        self.task: asyncio.Task[None] | None = None
        self.handled = 0  # keys taken from the queue so far (handled or dropped)

    def put(self, event: events.Event) -> None:
        self.queue.append(event)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._pump())

    @property
    def idle(self) -> bool:
        return not self.queue and (self.task is None or self.task.done())

    async def _pump(self) -> None:
        while self.queue:
            event = self.queue.popleft()
            self.handled += 1
            if self.drop(event):
                continue
            screen = self.app.screen
            target: DOMNode = self.app.focused or screen
            await self.dispatch(event)
            await self._settled(target)
            if self.app.screen is not screen:  # a screen opened or closed: its focus first
                await self._settled(self.app.focused or self.app.screen)

    async def _settled(self, target: DOMNode) -> None:
        """Until the target, its ancestors, then the app have handled what is queued now."""
        nodes: list[MessagePump] = [n for n in target.ancestors_with_self if not isinstance(n, App)]
        for node in [*nodes, self.app]:
            await _drained(node)


async def _drained(node: MessagePump) -> None:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def done() -> None:
        if not future.done():
            future.set_result(None)

    if not node.call_later(done):
        return  # closed: nothing more will be handled there
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(future, SETTLE_TIMEOUT)
