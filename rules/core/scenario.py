"""Scenario files shared by every ruleset: YAML validated by a ruleset's pydantic model,
with errors that name the line, and the bundled example scenarios of a ruleset."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from rules.core.errors import InvalidInput, UnknownName

ModelT = TypeVar("ModelT", bound=BaseModel)


def parse_yaml_model(text: str, model: type[ModelT], source: str = "scenario") -> ModelT:
    """Validate YAML text with ``model``; errors say the file and line where possible."""
    try:
        raw = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise InvalidInput(
            "error.scenario.yaml",
            source=source,
            where=f" line {mark.line + 1}" if mark is not None else "",
            detail=str(getattr(error, "problem", error))[:200],
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        line_number = line_of(raw, first["loc"])
        where = ".".join(str(part) for part in first["loc"])
        raise InvalidInput(
            "error.scenario.invalid",
            source=source,
            where=f" line {line_number}" if line_number else "",
            detail=f"{where}: {first['msg']}"[:300],
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


def load_bundled_model(package: str, model: type[ModelT], scenario_id: str) -> ModelT:
    """A bundled scenario by id, validated with ``model``."""
    paths = bundled_files(package)
    if scenario_id not in paths:
        raise UnknownName("error.unknown_scenario", name=scenario_id[:40], known=", ".join(paths))
    return parse_yaml_model(paths[scenario_id].read_text("utf-8"), model, scenario_id)
