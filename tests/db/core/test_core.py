"""The store's operations, written once (db/core/), run by a scripted fake driver.

No database here: each test plays the driver, answering the statements an operation yields
with given rows, and checks what it yields and what it makes of the answers. The same
operation is then translated for both backends: the proof that it is written once and that
only the dialect differs.
"""

from __future__ import annotations

from typing import Any

import pytest

from db.chain.hashing import state_hash
from db.chain.prepare import prepare_event
from db.chain.verify import VerifiedChains, VerifiedHead
from db.core import games, records
from db.core.dialect import POSTGRES, SQLITE
from db.core.steps import Batch, Compute, Query, Step, drive_sync
from db.errors import GameEnded, GameNotFound, VersionConflict
from db.models import NewEvent, PreparedState, Scope

CHANNEL = 42
CREATED = "2026-03-01T11:30:00.000000+00:00"
HEAD_HASH = "ab" * 32
STORED = '{"turn":4}'
SALT = "c3" * 32  # the record's secret salt, read with its head
NEW = '{"turn":5}'


class ScriptedDriver:
    """Answers each query with the first scripted answer whose key is in its SQL."""

    def __init__(self, answers: list[tuple[str, Any]]) -> None:
        self.answers = answers
        self.seen: list[Query] = []

    def __call__(self, query: Query) -> Any:
        self.seen.append(query)
        for index, (key, answer) in enumerate(self.answers):
            if key in query.sql:
                del self.answers[index]
                return answer
        return None

    def run(self, steps: Step[Any]) -> Any:
        return drive_sync(steps, self)


def _commit(version_read: int, *, exists: bool = False, status: str = "active") -> Any:
    """A commit of ``NEW`` over ``STORED`` at version 4, expected at ``version_read``."""
    chains = VerifiedChains()
    chains.remember(CHANNEL, VerifiedHead(CREATED, 4, HEAD_HASH))
    prepared = PreparedState(CHANNEL, NEW, base_text=STORED, patch_json='[[["turn"],5]]')
    pending = prepare_event(NewEvent(verb="move", args={"unit": "A"}, interaction_id="i-1"))
    decide = games.decide_commit  # type: ignore[assignment]
    steps = games.append(
        SQLITE,
        channel_id=CHANNEL,
        expected_version=version_read,
        pending=pending,
        decide=lambda v, s, k: decide(
            v, s, k, channel_id=CHANNEL, document_json=NEW, new_status=None
        ),
        chains=chains,
        prepared=prepared,
    )
    head = (
        int(exists),
        4,
        status,
        HEAD_HASH,
        STORED,
        CREATED,
        state_hash(STORED, status, SALT),
        status,
        False,  # version 4 is not a snapshot,
        40,  # the patches since version 1 take 40 bytes
        SALT,
    )
    return steps, head


def test_a_commit_reads_its_head_once_and_writes_one_batch() -> None:
    steps, head = _commit(4)
    driver = ScriptedDriver([("EXISTS", head), ("UPDATE games", 1)])
    result = driver.run(steps)
    assert result.version == 5 and not result.duplicate
    assert result.event.prev_hash == HEAD_HASH
    assert result.event.state_hash == state_hash(NEW, "active", SALT)
    statements = [query.sql for query in driver.seen]
    assert len(statements) == 6  # one read, then the batch
    assert statements[0].startswith("SELECT EXISTS")
    assert [sql.split()[0] for sql in statements[1:]] == [
        "UPDATE",
        "INSERT",
        "INSERT",
        "INSERT",
        "DELETE",
    ]
    assert "INTO states" in statements[2] and "INTO events" in statements[3]
    assert "INTO patches" in statements[4] and "FROM states" in statements[5]
    # The stored patch is the prepared one; the previous whole document (4 is not a
    # snapshot) is dropped; the guard moves the game from 4 to 5.
    # The patches since version 1 now take 54 bytes, more than half of version 5's small
    # document: version 5 is a snapshot (db.chain.patch.snapshot_due).
    assert len(NEW) < 2 * 54
    assert driver.seen[4].params == (CHANNEL, 5, "active", '[[["turn"],5]]', True, 54)
    assert driver.seen[5].params == (CHANNEL, 4)
    assert driver.seen[1].params[0] == 5 and driver.seen[1].params[-1] == 4


def test_the_same_statements_in_both_dialects() -> None:
    steps, head = _commit(4)
    driver = ScriptedDriver([("EXISTS", head), ("UPDATE games", 1)])
    driver.run(steps)
    read_head = driver.seen[0].sql
    assert SQLITE.translate(read_head).count("?") == 2
    assert "FOR UPDATE" not in SQLITE.translate(read_head)
    postgres = POSTGRES.translate(read_head)
    assert "$1" in postgres and "$2" in postgres and "?" not in postgres
    assert postgres.endswith("FOR UPDATE OF g")
    assert "s.document_text" in postgres and "s.document," in SQLITE.translate(read_head)


def test_a_moved_version_is_a_conflict_and_writes_nothing() -> None:
    steps, head = _commit(3)
    driver = ScriptedDriver([("EXISTS", head)])
    with pytest.raises(VersionConflict) as raised:
        driver.run(steps)
    assert (raised.value.expected, raised.value.actual) == (3, 4)
    # The head, then the interaction looked up (a retry that raced its original is a
    # duplicate, not a conflict): reads only.
    assert [query.sql.split()[0] for query in driver.seen] == ["SELECT", "SELECT"]
    assert "interaction_id = ?" in driver.seen[1].sql


def test_a_committed_interaction_gets_its_result_back() -> None:
    steps, head = _commit(4, exists=True)
    # The event this interaction stored at version 5, as its row reads back.
    earlier = prepare_event(NewEvent(verb="move", args={"unit": "A"}, interaction_id="i-1"))
    writes, event = games.event_writes(
        SQLITE,
        channel_id=CHANNEL,
        version=5,
        prev_hash=HEAD_HASH,
        pending=earlier,
        args_json=earlier.args_json,
        document_json=NEW,
        status="active",
        undoes_seq=None,
        salt=SALT,
    )
    # The row read back by interaction ends with its record's salt, which its hash covers.
    found = (*writes[1].params, SALT)
    driver = ScriptedDriver([("EXISTS", head), ("WHERE interaction_id", found)])
    result = driver.run(steps)
    assert result.duplicate and result.event == event
    assert all(query.sql.startswith("SELECT") for query in driver.seen)  # nothing written


def test_an_ended_game_takes_no_command() -> None:
    steps, head = _commit(4, status="ended")
    driver = ScriptedDriver([("EXISTS", head)])
    with pytest.raises(GameEnded):
        driver.run(steps)
    assert len(driver.seen) == 1


def test_a_missing_game_is_read_twice_then_not_found() -> None:
    """PostgreSQL may have waited for the row: a second, fresh read settles it."""
    steps, _ = _commit(4)
    driver = ScriptedDriver([])
    with pytest.raises(GameNotFound):
        driver.run(steps)
    assert [query.sql.split()[1] for query in driver.seen] == ["EXISTS", "EXISTS", "channel_id,"]


def test_a_patch_that_must_be_made_goes_off_the_event_loop() -> None:
    """Without a prepared patch for the stored text, the diff is `Compute` work."""
    chains = VerifiedChains()
    chains.remember(CHANNEL, VerifiedHead(CREATED, 4, HEAD_HASH))
    pending = prepare_event(NewEvent(verb="move"))
    steps = games.append(
        SQLITE,
        channel_id=CHANNEL,
        expected_version=4,
        pending=pending,
        decide=lambda v, s, k: games.decide_commit(
            v, s, k, channel_id=CHANNEL, document_json=NEW, new_status=None
        ),
        chains=chains,
        prepared=PreparedState(CHANNEL, NEW),
    )
    stored_hash = state_hash(STORED, "active", SALT)
    head = (0, 4, "active", HEAD_HASH, STORED, CREATED, stored_hash, "active", False, 40, SALT)
    request = steps.send(None)
    assert isinstance(request, Query)
    request = steps.send(head)
    assert isinstance(request, Compute)
    patch = request.function()
    assert patch == '[[["turn"],5]]'
    request = steps.send(patch)
    assert isinstance(request, Batch) and len(request.queries) == 5


RECORD_ROW = (7, "deadline", CHANNEL, CHANNEL, "rossi", '{"a":1}', 2, None, CREATED, True)


def test_a_refused_claim_writes_nothing_and_reseals_nothing() -> None:
    driver = ScriptedDriver([("SELECT 1 FROM games", 1), ("INSERT", None)])
    claim = records.put(
        SQLITE, "warning", Scope.of_game(CHANNEL), "k", "{}", now=CREATED, if_absent=True
    )
    assert driver.run(claim) is None
    assert [q.sql.split()[0] for q in driver.seen] == ["SELECT", "INSERT"]
    assert "DO NOTHING" in driver.seen[1].sql


def test_a_sealed_record_reseals_its_game() -> None:
    driver = ScriptedDriver(
        [("SELECT 1 FROM games", 1), ("INSERT", RECORD_ROW), ("UNION ALL", []), ("UPDATE", 1)]
    )
    put = records.put(
        SQLITE, "deadline", Scope.of_game(CHANNEL), "rossi", '{"a":1}', now=CREATED, sealed=True
    )
    record = driver.run(put)
    assert record is not None and record.value == {"a": 1} and record.revision == 2
    assert any("UNION ALL" in q.sql for q in driver.seen)


def test_a_record_of_a_missing_game() -> None:
    with pytest.raises(GameNotFound):
        ScriptedDriver([("SELECT 1 FROM games", None)]).run(
            records.put(SQLITE, "pace", Scope.of_game(CHANNEL), "pace", "{}", now=CREATED)
        )


def test_a_guild_record_takes_no_game() -> None:
    row = (8, "creator_role", 5, None, "creator", "{}", 1, None, CREATED, False)
    driver = ScriptedDriver([("INSERT", row)])
    record = driver.run(
        records.put(SQLITE, "creator_role", Scope.of_guild(5), "creator", "{}", now=CREATED)
    )
    assert record is not None and record.scope == Scope.of_guild(5)
    assert len(driver.seen) == 1


def test_timestamps_go_out_in_each_backends_type() -> None:
    for dialect, kind in ((SQLITE, str), (POSTGRES, object)):
        driver = ScriptedDriver([("", [])])
        driver.run(records.due(dialect, "deadline", CREATED))
        due = driver.seen[0].params[1]
        assert isinstance(due, kind) and (kind is object) == (not isinstance(due, str))
