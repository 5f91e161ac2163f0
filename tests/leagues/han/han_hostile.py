"""A hostile agent for the hidden-values test (imported by name, ``han_hostile:Snoop``, in
the agent's own process): it looks for the other side's points everywhere it can reach
and says what it found in a message; and one that shows a face people must not see."""

from __future__ import annotations

import gc
import glob
import os

from accord.leagues.han.api import HanAgent, expression, message
from accord.leagues.han.events import Event, EventKind


def _found() -> list[str]:
    found = []
    for obj in gc.get_objects():  # every object of its process
        name = type(obj).__name__
        if name == "GameSpec":
            found.append(f"spec:{getattr(obj, 'person_points', None)}")
        elif isinstance(obj, dict) and isinstance(obj.get("person_points"), tuple | list):
            found.append(f"dict:{obj['person_points']}")
    try:  # the organiser's process memory
        with open(f"/proc/{os.getppid()}/mem", "rb") as f:
            f.read(1)
        found.append("parent-memory")
    except OSError:
        pass
    for root in {os.getcwd(), os.environ.get("TMPDIR", "/tmp")}:  # game files on disk
        for path in glob.glob(os.path.join(root, "**", "*.json"), recursive=True)[:2000]:
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read(100_000)
            except (OSError, UnicodeDecodeError):
                continue
            if "accord-han-game" in text:
                found.append(f"file:{path}")
    return found


class Snoop(HanAgent):
    """Reports what it could find of the other side's values at the start."""

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is not EventKind.GAME_START:
            return []
        view = self.view
        fields = sorted(k for k in vars(view) if "person" in k or "other" in k)
        return [message(f"snoop view={fields} found={_found()}")]


class Smug(HanAgent):
    """Shows a face outside the allowed set, then a happy one."""

    def on_event(self, event: Event) -> list[Event]:
        if event.kind is not EventKind.GAME_START:
            return []
        return [expression("smug"), expression("happy")]
