"""The sequence of play as declared data: phases, their numbered steps, who acts in each, and
what a resolution owes before anything else may happen.

A ruleset declares its sequence once, in ``rules/<key>/sequence.yaml`` (each phase, step and
owed resolution citing the seed lines it comes from), and says where a game stands: its
:class:`Position` (phase, step, the resolutions owed now). From these two the core answers
whether a verb may be given now (:func:`check`, the refusal; :func:`allows`, the legal
listing) and where a verb takes the game (:meth:`SequenceDeclaration.step_of`), which the
whole-game fuzzer checks after every command.

The rules of order the format states:

* the phases follow each other in the declared order, player turn after player turn;
* inside a phase the steps follow each other in order: giving a verb of a later step closes
  the earlier ones, and a closed step's verbs are refused (``refusals.step_closed``); a verb
  may belong to several steps (linea_gotica's quality classes all fire): it is refused once
  every step it belongs to is closed;
* a step that may be passed over (``skippable``: nobody may act in it) does not stop the
  phase being entered past it;
* a step without verbs (``announces``) is the bot's: it announces it as it opens;
* an owed resolution blocks the verbs it names (``blocks``: ``all``, or a list of verbs)
  until one of its own verbs answers it (``refusal``: the catalogue key naming it); one owed
  as its phase closes (``closes_phase``) closes the phase when the last is answered;
* a phase is left only by the advance verb (or that last answer), into the next phase, at
  its first step (or the first after steps passed over) — unless it declares what closes it
  by itself (``closed_by_bot``): then whatever command brings that about leaves it, and such
  a phase with nothing to play may be passed through at once.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules.core.errors import IllegalAction, ParamValue
from rules.core.yamlio import load_yaml

FILE_NAME = "sequence.yaml"


class Actor(enum.StrEnum):
    """Who may give a step's or an owed resolution's verbs."""

    ACTIVE = "active"  # the player whose turn it is
    OPPONENT = "opponent"  # the other player
    EITHER = "either"  # either player
    OWNER = "owner"  # the side of the unit that owes it
    BOT = "bot"  # nobody: the bot announces or resolves it


class _Declared(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)
    lines: tuple[int, ...] = Field(min_length=1, description="the seed lines it comes from")
    seed: str = Field(min_length=1, description="the seed's words")


class Step(_Declared):
    """A numbered step of a phase."""

    actor: Actor
    verbs: tuple[str, ...] = ()
    opens: str = Field(min_length=1, description="what opens it")
    closes: str = Field(min_length=1, description="what closes it")
    announces: str | None = Field(None, description="the catalogue key the bot announces")
    skippable: bool = Field(False, description="passed over when nobody may act in it")

    @model_validator(mode="after")
    def _someone_acts(self) -> Step:
        if not self.verbs and self.announces is None:
            raise ValueError(f"step {self.id}: give its verbs or what the bot announces")
        if self.verbs and self.actor is Actor.BOT:
            raise ValueError(f"step {self.id}: the bot gives no verb")
        return self


class PhaseDeclaration(_Declared):
    """A phase of a player turn and its steps, in order."""

    steps: tuple[Step, ...] = Field(min_length=1)
    closed_by_bot: str | None = Field(
        None,
        description="what closes the phase by itself, whatever command brings it about "
        "(None: only the advance verb or the last answer to a closing owed resolution)",
    )

    @model_validator(mode="after")
    def _unique(self) -> PhaseDeclaration:
        ids = [s.id for s in self.steps]
        if len(set(ids)) != len(ids) or any(len(set(s.verbs)) != len(s.verbs) for s in self.steps):
            raise ValueError(f"phase {self.id}: a step id, or a verb of a step, is declared twice")
        return self

    def index(self, step: str) -> int:
        """The position of ``step`` in the phase (0 for the first)."""
        return next(i for i, s in enumerate(self.steps) if s.id == step)

    def steps_of(self, verb: str) -> tuple[Step, ...]:
        """The steps whose verb this is, in order (none: a verb of no step of this phase)."""
        return tuple(s for s in self.steps if verb in s.verbs)

    def open_steps_of(self, verb: str, now: str) -> tuple[Step, ...]:
        """The steps of ``verb`` still open at step ``now`` (``now`` or later)."""
        return tuple(s for s in self.steps_of(verb) if self.index(s.id) >= self.index(now))

    def may_enter_at(self, step: str) -> bool:
        """Whether the phase may open at ``step``: its first, or one after steps that may be
        passed over."""
        return all(s.skippable for s in self.steps[: self.index(step)])


class OwedDeclaration(_Declared):
    """A resolution owed: what answers it, who gives it, what it blocks meanwhile."""

    actor: Actor
    verbs: tuple[str, ...] = Field(min_length=1)
    blocks: Literal["all"] | tuple[str, ...]
    refusal: str = Field(min_length=1, description="the catalogue key of the refusal")
    referee_skips: bool = Field(False, description="the referee may move on without it")
    closes_phase: bool = Field(
        False, description="owed as the phase closes: the last one answered closes it"
    )


class Refusals(BaseModel):
    """The catalogue keys of the refusals the sequence itself gives."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step_closed: str = Field(description="params: step (closed), now (the step open now)")


class SequenceDeclaration(BaseModel):
    """A ruleset's whole sequence of play."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    ruleset: str
    seed: str = Field(description="the seed file under docs/seeds/")
    advance: str = Field(description="the verb that closes a phase")
    refusals: Refusals
    phases: tuple[PhaseDeclaration, ...] = Field(min_length=1)
    owed: tuple[OwedDeclaration, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> SequenceDeclaration:
        for kind, ids in (("phase", [p.id for p in self.phases]), ("owed", self.owed_ids)):
            if len(set(ids)) != len(ids):
                raise ValueError(f"a {kind} id is declared twice")
        return self

    @property
    def owed_ids(self) -> list[str]:
        """The ids of the owed resolutions, in order."""
        return [o.id for o in self.owed]

    def phase(self, phase: str) -> PhaseDeclaration:
        """A phase by id."""
        return next(p for p in self.phases if p.id == phase)

    def owed_by(self, owed: str) -> OwedDeclaration:
        """An owed resolution by id."""
        return next(o for o in self.owed if o.id == owed)

    def next_phase(self, phase: str) -> str:
        """The phase after ``phase`` (after the last: the first, of the next player turn)."""
        ids = [p.id for p in self.phases]
        return ids[(ids.index(phase) + 1) % len(ids)]

    def when(self, verb: str) -> list[str]:
        """Where ``verb`` is given, in the seed's words: ``phase › step (lines …)`` for each
        step it belongs to, then each owed resolution it answers (what ``/help`` shows)."""
        places = [
            f"{phase.seed} › {step.seed} ({_lines(step.lines)})"
            for phase in self.phases
            for step in phase.steps
            if verb in step.verbs
        ]
        return places + [
            f"{owed.seed} ({_lines(owed.lines)})" for owed in self.owed if verb in owed.verbs
        ]

    def cited_lines(self) -> set[int]:
        """Every seed line the declaration cites."""
        found: set[int] = set()
        for phase in self.phases:
            found.update(phase.lines)
            for step in phase.steps:
                found.update(step.lines)
        for owed in self.owed:
            found.update(owed.lines)
        return found


def _lines(lines: tuple[int, ...]) -> str:
    return ", ".join(str(n) for n in lines)


@dataclass(frozen=True, slots=True)
class Owing:
    """A resolution owed now (an id of the declaration) and its refusal's parameters."""

    kind: str
    params: Mapping[str, ParamValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a game stands in its sequence: phase, step, the resolutions owed."""

    phase: str
    step: str
    owing: tuple[Owing, ...] = ()


@dataclass(frozen=True, slots=True)
class Tracked:
    """A ruleset's declared sequence and where a game document stands in it (what the
    whole-game fuzzer follows: :func:`transition_problem`)."""

    declaration: SequenceDeclaration
    position: Callable[[Mapping[str, Any]], Position]


def transition_problem(
    declared: SequenceDeclaration, was: Position, now: Position, verb: str
) -> str | None:
    """What is wrong with a command ``verb`` that took a game from ``was`` to ``now`` (None:
    nothing): acted out of its step, a step gone back, a phase skipped or left otherwise
    than by the advance verb, a phase entered past its first step."""
    phase = declared.phase(was.phase)
    steps, still_open = phase.steps_of(verb), phase.open_steps_of(verb, was.step)
    if steps and not still_open:
        return f"/{verb} acted in the closed step {steps[-1].id} (now {was.step})"
    if now.phase == was.phase:
        if phase.index(now.step) < phase.index(was.step):
            return f"/{verb} took {was.phase} back from {was.step} to {now.step}"
        if steps and now.step not in [s.id for s in still_open]:
            return f"/{verb} (step {still_open[0].id}) left the game at step {now.step}"
        return None
    closing = any(
        declared.owed_by(o.kind).closes_phase and verb in declared.owed_by(o.kind).verbs
        for o in was.owing
    )
    if verb != declared.advance and not closing and phase.closed_by_bot is None:
        return f"/{verb} left the phase {was.phase}"
    following = declared.next_phase(was.phase)
    while following != now.phase and declared.phase(following).closed_by_bot is not None:
        following = declared.next_phase(following)  # entered and closed at once: nothing in it
    if now.phase != following:
        return f"{was.phase} was followed by {now.phase}, not {declared.next_phase(was.phase)}"
    if not declared.phase(now.phase).may_enter_at(now.step):
        return f"{now.phase} entered at its step {now.step}"
    return None


def check(
    declared: SequenceDeclaration, position: Position, verb: str, *, by_referee: bool = False
) -> None:
    """Refuse ``verb`` if the sequence does not allow it now (an owed resolution it does not
    answer blocks it, or its step is closed); other refusals are the handlers'."""
    for owing in position.owing:
        rule = declared.owed_by(owing.kind)
        if verb in rule.verbs or (by_referee and rule.referee_skips):
            continue
        if rule.blocks == "all" or verb in rule.blocks:
            raise IllegalAction(rule.refusal, **owing.params)
    phase = declared.phase(position.phase)
    steps = phase.steps_of(verb)
    if steps and not phase.open_steps_of(verb, position.step):
        raise IllegalAction(
            declared.refusals.step_closed,
            step=steps[-1].seed,
            now=phase.steps[phase.index(position.step)].seed,
        )


def allows(
    declared: SequenceDeclaration, position: Position, verb: str, *, by_referee: bool = False
) -> bool:
    """Whether :func:`check` lets ``verb`` through now."""
    try:
        check(declared, position, verb, by_referee=by_referee)
    except IllegalAction:
        return False
    return True


def declaration_path(key: str) -> Path:
    """Where ruleset ``key`` declares its sequence."""
    return Path(__file__).resolve().parent.parent / key / FILE_NAME


def parse_sequence(text: str, source: str) -> SequenceDeclaration:
    """A sequence from its YAML text; a ``ValueError`` naming ``source`` if it is wrong."""
    try:
        return SequenceDeclaration.model_validate(load_yaml(text))
    except ValidationError as error:
        raise ValueError(f"{source}: {error}") from None


@lru_cache(maxsize=32)  # one per ruleset key: bounded like every cache
def declared_sequence(key: str) -> SequenceDeclaration | None:
    """Ruleset ``key``'s sequence (None: it declares none yet)."""
    path = declaration_path(key)
    if not path.is_file():
        return None
    return parse_sequence(path.read_text(encoding="utf-8"), str(path))


__all__ = [
    "Actor",
    "OwedDeclaration",
    "Owing",
    "PhaseDeclaration",
    "Position",
    "SequenceDeclaration",
    "Step",
    "Tracked",
    "allows",
    "check",
    "declared_sequence",
    "parse_sequence",
    "transition_problem",
]
