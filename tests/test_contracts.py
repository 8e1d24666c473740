"""The layers' import contracts, declared in pyproject.toml ([tool.importlinter]) and run
here with import-linter: rules/ knows neither bot/ nor db/; db/ knows neither bot/ nor any
ruleset; the service never imports a front end; the service's features are independent of
each other. An import that crosses one today is listed there, with its reason."""

from __future__ import annotations

import copy
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import grimp
import pytest
from grimp import ImportGraph
from importlinter import api  # noqa: F401  (configures import-linter's readers and contract types)
from importlinter.application import use_cases
from importlinter.contracts.forbidden import ForbiddenContract
from importlinter.contracts.independence import IndependenceContract
from importlinter.domain.contract import Contract

import bot.service

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
    assert set(CROSSINGS) == ids


def test_the_features_list_no_exception() -> None:
    """No feature imports another: what one needs of another comes through the core (a
    reaction, a status part, the table's fallback, a shared step such as the closing)."""
    [features] = [c for c in _options().contracts_options if c["id"] == "features-independent"]
    assert not features.get("ignore_imports")


def test_every_feature_is_in_the_features_list() -> None:
    """A module of the service that declares handlers or reactions for the table is a
    feature, and so independent of the others (the composers that join them, `core` and
    the pages' read model, declare none)."""
    [features] = [c for c in _options().contracts_options if c["id"] == "features-independent"]
    declaring = {
        module.name
        for module in pkgutil.iter_modules(bot.service.__path__, "bot.service.")
        if {"HANDLERS", "REACTIONS"} & set(vars(importlib.import_module(module.name)))
    }
    assert "bot.service.web" in declaring
    assert declaring == set(features["modules"])


#: For each contract, imports that would cross it (each alone).
CROSSINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "rules-pure": (("rules.core.dice", "bot.service.handlers"),),
    "db-storage-only": (("db.models", "rules.core.dice"),),
    "front-ends-above-service": (
        ("bot.service.views", "bot.discord.embeds"),
        # The web front end is a front end too: the service signs links, the pages serve.
        ("bot.service.links", "bot.web.app"),
        ("bot.service.pages", "bot.web.pages"),
    ),
    "features-independent": (
        ("bot.service.views", "bot.service.seats"),
        # The web feature gives links; what a page shows is composed apart (pages).
        ("bot.service.web", "bot.service.views"),
        ("bot.service.web", "bot.service.campaign"),
    ),
}

_EACH_CROSSING = [
    (contract_id, importer, imported)
    for contract_id, crossings in sorted(CROSSINGS.items())
    for importer, imported in crossings
]

_CONTRACT_TYPES: dict[str, type[Contract]] = {
    "forbidden": ForbiddenContract,
    "independence": IndependenceContract,
}


@pytest.fixture(scope="module")
def code_graph() -> ImportGraph:
    """The import graph of the code as it is (built once for the tests below)."""
    return grimp.build_graph(*_options().session_options["root_packages"], cache_dir=None)


@pytest.mark.parametrize(("contract_id", "importer", "imported"), _EACH_CROSSING)
def test_each_contract_is_broken_by_an_import_across_it(
    contract_id: str, importer: str, imported: str, code_graph: ImportGraph
) -> None:
    """The contracts bite: kept by the code as it is, each is broken by one more import
    across it (a feature importing another, the service a front end…)."""
    options = _options()
    [contract_options] = [c for c in options.contracts_options if c["id"] == contract_id]
    contract = _CONTRACT_TYPES[contract_options["type"]](
        name=contract_options["name"],
        session_options=options.session_options,
        contract_options=contract_options,
    )
    assert contract.check(copy.deepcopy(code_graph), verbose=False).kept
    crossed = copy.deepcopy(code_graph)
    crossed.add_import(importer=importer, imported=imported, line_number=1, line_contents="")
    assert not contract.check(crossed, verbose=False).kept
