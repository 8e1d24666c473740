"""YAML loading through libyaml when PyYAML was built with it (about ten times faster)."""

from __future__ import annotations

from typing import Any

import yaml

try:
    SafeLoader: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    SafeLoader = yaml.SafeLoader


def load_yaml(text: str) -> Any:
    """Parse trusted YAML (the package's own tables, catalogues and data) safely."""
    return yaml.load(text, Loader=SafeLoader)
