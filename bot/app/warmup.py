"""Settling the heap once the process has loaded what it keeps for its whole life.

A full garbage collection walks every tracked object, and whichever thread triggers it holds
the GIL meanwhile: with the rules' tables, catalogues, discord.py and pydantic loaded, one
pass stalled the event loop for 0.1–0.27 s (measured with ``gc.callbacks`` while a scenario
was parsed on a worker thread). What is loaded at start-up lives as long as the process, so
it is moved out of the collector's sight (``gc.freeze``): later passes walk only what games
create. The pages' own process (`bot.web.beside`) settles its heap too: there a full pass
over the unfrozen heap took 35–90 ms and made the slowest pages (docs/web.md, "Speed").

The youngest generation is then collected less often (`YOUNG_THRESHOLD` new container
objects instead of Python's 700). A command allocates thousands of them — the state
validated and dumped, the JSON parsed, the views — nearly all freed at once by their
reference counts; at 700 a collection ran inside most commands, holding the GIL for a p50 of
0.23–0.27 ms per command and a mean of 0.7–1.3 ms (`bench/bench_command_phases.py`, the
collector's pauses); at 10,000 the p50 is 0 and the mean 0.3–0.4 ms. What waits longer to
be collected is only garbage in cycles, at most that many objects.
"""

from __future__ import annotations

import gc
import logging

from rules.core.i18n import LANGUAGES, catalogue
from rules.core.ruleset import all_rulesets

log = logging.getLogger(__name__)

#: New container objects between two collections of the youngest generation (see above).
YOUNG_THRESHOLD = 10_000


def settle_heap() -> None:
    """Load every ruleset (tables, scenarios' list) and every language's catalogue, then
    freeze what is alive, and collect the youngest generation less often."""
    for ruleset in all_rulesets():
        ruleset.tables  # noqa: B018 - loading is the point: validated once, kept for life
        ruleset.rules.scenarios()
    for language in LANGUAGES:
        catalogue(language)
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
    log.debug("heap settled: %d objects frozen", gc.get_freeze_count())


__all__ = ["YOUNG_THRESHOLD", "settle_heap"]
