"""Scenario files shared by every ruleset: YAML validated by a ruleset's pydantic model,
with errors that name the line, and the bundled example scenarios of a ruleset."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from rules.core.battlefield import Battlefield, PolygonShape
from rules.core.errors import InvalidInput, UnknownName
from rules.core.upload import Refusal, file_refusal
from rules.core.upload import ScenarioReferenceError as ScenarioReferenceError
from rules.core.words import Words, stored_title
from rules.core.yamlio import SafeLoader, load_yaml

ModelT = TypeVar("ModelT", bound=BaseModel)


# Limits on an uploaded scenario: a real one is a few KB, a few levels deep, with small numbers.
MAX_SCENARIO_BYTES = 256 * 1024
MAX_DEPTH = 24
MAX_NODES = 20_000
MAX_SCALAR_CHARS = 2_000
_INTEGER = re.compile(r"[-+]?(0[xob])?[0-9_]+")
MAX_INTEGER_DIGITS = 12

_Loader = SafeLoader  # libyaml when present: the pure-Python parser is ~10× slower


# Limits on what makes every command of a game cost time: the units each listing and each
# measure walks over, the models, the terrain areas and corners every line of sight and
# path is tested against, the named points every destination is looked up among. The
# bundled scenarios use a tenth of each (7 units a side, 9 areas of 4 corners, 5 points); a
# club's biggest table stays well within them. Checked when a scenario is loaded (bundled
# or uploaded), each refusal naming the line of the first entry past its limit.
MAX_UNITS_PER_SIDE = 60
MAX_UNITS = 100
MAX_MODELS = 2_000
MAX_AREAS = 60
MAX_CORNERS_PER_AREA = 64
MAX_CORNERS = 1_000
MAX_POINTS = 60

Location = tuple[str | int, ...]


class ScenarioLimitError(ScenarioReferenceError):
    """A scenario past one of the limits above: refused with ``error.scenario.limit.KIND``
    (localized), naming the line of ``location``."""

    def __init__(self, kind: str, location: Location, /, **params: str | int) -> None:
        super().__init__(f"{kind}: over the limit {params.get('limit')}", location)
        self.kind = kind
        self.params = params


def check_forces(sides: Sequence[tuple[str, Sequence[tuple[Location, int]]]]) -> None:
    """Refuse forces past the limits: ``sides`` gives each side's id and, for each of its
    units, where the unit is in the file and how many models it has (0: not counted)."""
    units = models = 0
    for side, entries in sides:
        for count, (where, unit_models) in enumerate(entries, start=1):
            if count > MAX_UNITS_PER_SIDE:
                raise ScenarioLimitError(
                    "units_per_side",
                    where,
                    side=side,
                    found=len(entries),
                    limit=MAX_UNITS_PER_SIDE,
                )
            units += 1
            if units > MAX_UNITS:
                total = sum(len(e) for _, e in sides)
                raise ScenarioLimitError("units", where, found=total, limit=MAX_UNITS)
            models += unit_models
            if models > MAX_MODELS:
                total = sum(m for _, e in sides for _, m in e)
                raise ScenarioLimitError("models", where, found=total, limit=MAX_MODELS)


def check_battlefield(
    field: Battlefield,
    at: Location = ("battlefield",),
    extra_areas: Sequence[tuple[Location, Any]] = (),
) -> None:
    """Refuse a battlefield past the limits on areas, corners and named points; ``at`` is
    where the battlefield is in the file. ``extra_areas`` are other shapes the geometry
    tests the same way (a ruleset's minefields), each with its own location."""
    areas: list[tuple[Location, Any, str]] = [
        ((*at, "areas", index), area.shape, area.id) for index, area in enumerate(field.areas)
    ]
    areas += [(where, shape, str(where[-1])) for where, shape in extra_areas]
    if len(areas) > MAX_AREAS:
        raise ScenarioLimitError("areas", areas[MAX_AREAS][0], found=len(areas), limit=MAX_AREAS)
    corners = 0
    for where, shape, name in areas:
        count = len(shape.points) if isinstance(shape, PolygonShape) else 0
        if count > MAX_CORNERS_PER_AREA:
            raise ScenarioLimitError(
                "corners_per_area", where, area=name, found=count, limit=MAX_CORNERS_PER_AREA
            )
        corners += count
        if corners > MAX_CORNERS:
            total = sum(len(s.points) for _, s, _ in areas if isinstance(s, PolygonShape))
            raise ScenarioLimitError("corners", where, found=total, limit=MAX_CORNERS)
    if len(field.points) > MAX_POINTS:
        name = list(field.points)[MAX_POINTS]
        raise ScenarioLimitError(
            "points", (*at, "points", name), found=len(field.points), limit=MAX_POINTS
        )


def _refuse(kind: str, source: str, line: int | None, /, **params: str | int) -> InvalidInput:
    """A scenario refusal; ``yaml`` and ``invalid`` have a wording without a line too."""
    if line is None:
        return InvalidInput(f"error.scenario.{kind}", source=source, **params)
    if kind in ("yaml", "invalid"):
        kind += "_line"  # the limit.* keys always name their line
    return InvalidInput(f"error.scenario.{kind}", source=source, line=line, **params)


def _screen(text: str, source: str) -> None:
    """Refuse hostile YAML before building anything: size, depth, node count, aliases,
    huge scalars and integers. Reads the event stream, which needs no recursion."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_SCENARIO_BYTES:
        raise _refuse("too_big", source, None, limit=MAX_SCENARIO_BYTES, size=size)
    depth = nodes = 0
    for event in yaml.parse(text, Loader=_Loader):
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _refuse("alias", source, line)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _refuse("too_deep", source, line, limit=MAX_DEPTH)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if isinstance(event, yaml.NodeEvent):
            nodes += 1
            if nodes > MAX_NODES:
                raise _refuse("too_many", source, line, limit=MAX_NODES)
        if isinstance(event, yaml.ScalarEvent):
            value = event.value
            if len(value) > MAX_SCALAR_CHARS:
                raise _refuse("long_value", source, line, limit=MAX_SCALAR_CHARS)
            digits = value.replace("_", "").lstrip("+-")
            if (
                event.implicit[0]
                and not event.style
                and _INTEGER.fullmatch(value)
                and (len(digits) > MAX_INTEGER_DIGITS)
            ):
                raise _refuse("number", source, line, limit=MAX_INTEGER_DIGITS)


def _no_duplicate_keys(node: Any, source: str) -> None:
    """Refuse a mapping that gives the same key twice (YAML keeps the last one silently)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            seen: set[str] = set()
            for key, value in current.value:
                name = str(key.value)
                if name in seen:
                    raise _refuse("duplicate", source, key.start_mark.line + 1, key=name[:40])
                seen.add(name)
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def parse_yaml_model(
    text: str,
    model: type[ModelT],
    source: str = "scenario",
    context: Mapping[str, Any] | None = None,
) -> ModelT:
    """Validate YAML text with ``model``; every refusal is an :class:`InvalidInput` that
    names the file and, where it can, the line (never a crash, whatever the bytes).

    Validated strictly, as JSON: a bool is not a number, nor ``"7"`` 7 (a list still reads
    as a tuple, a string as an enumeration's value). ``context``: what the model's
    validators check the file against (a roster file: the ruleset's weapons)."""
    source = source if len(source) <= 60 else "…" + source[-59:]  # a path keeps its name
    try:
        _screen(text, source)
        raw = yaml.compose(text, Loader=_Loader)
        _no_duplicate_keys(raw, source)
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise _refuse(
            "yaml",
            source,
            mark.line + 1 if mark is not None else None,
            detail=str(getattr(error, "problem", None) or error)[:200],
        ) from None
    except (RecursionError, ValueError, OverflowError, MemoryError) as error:
        # The screen catches what we know of; anything PyYAML still chokes on is refused.
        raise _refuse("yaml", source, None, detail=type(error).__name__) from None
    try:
        # A date or a time YAML read is written back as its text; keys as strings.
        as_json = json.dumps(data, default=str, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise _refuse("yaml", source, None, detail=type(error).__name__) from None
    try:
        return model.model_validate_json(as_json, strict=True, context=context)
    except ValidationError as error:
        first = error.errors()[0]
        location = tuple(first["loc"])
        cause = (first.get("ctx") or {}).get("error")
        if isinstance(cause, ScenarioReferenceError | Refusal):
            location += cause.location
        line_number = line_of(raw, location)
        if isinstance(cause, ScenarioLimitError):
            raise _refuse(f"limit.{cause.kind}", source, line_number or 1, **cause.params) from None
        where = ".".join(str(part) for part in location)
        worded = file_refusal(first, source, line_number, where)
        if worded is not None and not isinstance(cause, ScenarioReferenceError):
            raise worded from None
        message = str(cause) if isinstance(cause, ScenarioReferenceError) else first["msg"]
        raise _refuse(
            "invalid", source, line_number, detail=(f"{where}: " if where else "") + message[:260]
        ) from None


def line_of(node: Any, location: tuple[Any, ...]) -> int | None:
    """The 1-based line of the YAML node at a pydantic error location."""
    current = node
    line = None
    for part in location:
        if current is None:
            break
        line = current.start_mark.line + 1
        if isinstance(current, yaml.MappingNode):
            current = next((v for k, v in current.value if k.value == part), None)
        elif isinstance(current, yaml.SequenceNode) and isinstance(part, int):
            current = current.value[part] if part < len(current.value) else None
        else:
            break
    if current is not None:
        line = current.start_mark.line + 1
    return line


def bundled_files(package: str) -> dict[str, Path]:
    """The bundled scenarios of a ruleset package, by id (file stem)."""
    folder = Path(str(resources.files(package) / "scenarios"))
    return {path.stem: path for path in sorted(folder.glob("*.yaml"))}


@lru_cache(maxsize=16)  # one per ruleset package
def bundled_titles(package: str) -> dict[str, Words]:
    """The bundled scenarios of a ruleset package, id → title in its languages (``/game
    new``'s listing reads it in the reader's).

    The files are the package's own (trusted YAML): read once, not validated again here.
    """
    titles: dict[str, Words] = {}
    for scenario_id, path in bundled_files(package).items():
        data = load_yaml(path.read_text("utf-8"))
        titles[scenario_id] = stored_title(data if isinstance(data, dict) else {})
    return titles


def load_bundled_model(package: str, model: type[ModelT], scenario_id: str) -> ModelT:
    """A bundled scenario by id, validated with ``model`` (parsed once: models are frozen)."""
    paths = bundled_files(package)
    if scenario_id not in paths:
        raise UnknownName("error.unknown_scenario", name=scenario_id[:40], known=", ".join(paths))
    parsed: ModelT = _parsed_bundle(package, model, scenario_id, paths[scenario_id])
    return parsed


@lru_cache(maxsize=64)  # the bundled scenarios: a handful
def _parsed_bundle(package: str, model: type[ModelT], scenario_id: str, path: Path) -> ModelT:
    return parse_yaml_model(path.read_text("utf-8"), model, scenario_id)
