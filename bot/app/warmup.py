"""Settling the heap once the process has loaded what it keeps for its whole life.

A full garbage collection walks every tracked object, and whichever thread triggers it holds
the GIL meanwhile: with the rules' tables, catalogues, discord.py and pydantic loaded, one
pass stalled the event loop for 0.1–0.27 s (measured with ``gc.callbacks`` while a scenario
was parsed on a worker thread). What is loaded at start-up lives as long as the process, so
it is moved out of the collector's sight (``gc.freeze``): later passes walk only what games
create. The pages' own process (`bot.web.beside`) settles its heap too: there a full pass
over the unfrozen heap took 35–90 ms and made the slowest pages (docs/web.md, "Speed").
"""

from __future__ import annotations

import gc
import logging

from rules.core.i18n import LANGUAGES, catalogue
from rules.core.ruleset import all_rulesets

log = logging.getLogger(__name__)


def settle_heap() -> None:
    """Load every ruleset (tables, scenarios' list) and every language's catalogue, then
    freeze what is alive."""
    for ruleset in all_rulesets():
        ruleset.tables  # noqa: B018 - loading is the point: validated once, kept for life
        ruleset.rules.scenarios()
    for language in LANGUAGES:
        catalogue(language)
    gc.collect()
    gc.freeze()
    log.debug("heap settled: %d objects frozen", gc.get_freeze_count())


__all__ = ["settle_heap"]
