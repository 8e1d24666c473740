"""The command plumbing every ruleset's game shares.

A command runs on a deep copy of the state, so a refused command (any RulesError raised by
its handler) leaves the caller's state exactly as it was — unless the caller hands the state
over (``owned``: a state it validated for this one command and will not read again), when
the command works on it in place (the copy costs as much as the rules); the handler records its
resolutions and notices on an :class:`Applied`. A *preview* (``/odds``) runs the same
handler while telling it to skip turn-order checks and lasting side effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from rules.core.dice import DiceSource, DiceTray
from rules.core.resolution import Outcome, Resolution

StateT = TypeVar("StateT", bound=BaseModel)

_PREVIEW: ContextVar[bool] = ContextVar("rules_preview", default=False)


@dataclass
class Applied(Generic[StateT]):
    """What a command did: the new state, its resolutions, and notices to show."""

    state: StateT
    resolutions: list[Resolution] = field(default_factory=list)
    notices: list[Outcome] = field(default_factory=list)
    tray: DiceTray | None = None


Handler = Callable[[Any, Any, DiceTray, "str | None", Any], None]


def is_preview() -> bool:
    """Whether the command being run is only previewed for its odds."""
    return _PREVIEW.get()


def run_command(
    state: StateT,
    command: Any,
    dice: DiceSource,
    handlers: Mapping[type, Handler],
    *,
    actor_side: str | None,
    preview: bool,
    settle: Callable[[StateT, Applied[StateT]], None] | None = None,
    other_dice: DiceSource | None = None,
    owned: bool = False,
) -> Applied[StateT]:
    """Run the handler of ``command`` on a copy of ``state`` for ``actor_side`` (on
    ``state`` itself when ``owned``: the caller hands it over).

    ``settle`` runs after a real (not previewed) command: the consequences a ruleset
    applies once any command is done (linea_gotica advances its phases there).
    ``other_dice`` serves the rolls made on behalf of another side (see
    :meth:`DiceTray.rolled_by`) when ``dice`` are a player's typed faces.
    """
    working = state if owned else state.model_copy(deep=True)
    tray = DiceTray(dice, others=other_dice, actor_side=actor_side)
    result: Applied[StateT] = Applied(working, tray=tray)
    token = _PREVIEW.set(preview)
    try:
        handlers[type(command)](working, command, tray, actor_side, result)
        if settle is not None and not preview:
            settle(working, result)
    finally:
        _PREVIEW.reset(token)
    return result
