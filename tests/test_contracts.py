"""The layers' import contracts, declared in pyproject.toml ([tool.importlinter]) and run
here with import-linter: rules/ knows neither bot/ nor db/; db/ knows neither bot/ nor any
ruleset; the service never imports a front end; the service's features are independent of
each other. The imports that cross them today are listed there, each with its reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from importlinter import api  # noqa: F401  (configures import-linter's readers and contract types)
from importlinter.application import use_cases

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _options() -> Any:
    return use_cases.read_user_options(str(PYPROJECT))


def test_the_import_contracts_are_kept() -> None:
    # The report (which contract, which import chain) is printed: pytest shows it on failure.
    assert use_cases.lint_imports(config_filename=str(PYPROJECT), cache_dir=None, no_logo=True)


def test_the_contracts_are_those_the_architecture_names() -> None:
    ids = {contract["id"] for contract in _options().contracts_options}
    assert ids == {
        "rules-pure",
        "db-storage-only",
        "front-ends-above-service",
        "features-independent",
    }


def test_a_contract_without_its_listed_exceptions_is_broken() -> None:
    """The contracts bite: without its listed exceptions, each contract that has some is
    broken (an exception whose import has gone is only a warning, so a branch removing
    imports merges green; the last one gone, this test goes with it)."""
    options = _options()
    excepted = [c for c in options.contracts_options if c.get("ignore_imports")]
    assert excepted, "no contract lists an exception any more: this test has done its work"
    for contract in excepted:
        contract["ignore_imports"] = []
        report = use_cases.create_report(
            options, limit_to_contracts=(contract["id"],), cache_dir=None
        )
        assert report.contains_failures, contract["id"]
