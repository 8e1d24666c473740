"""The notices' delivery policy, pure: quiet hours end when they say, in the player's zone;
nothing goes by direct message unless chosen; a digest or a recent message never sends now;
settings survive their record."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.service.notices.policy import (
    KINDS,
    Action,
    Settings,
    Via,
    mentioned,
    quiet_until,
    route,
)

ZONES = st.sampled_from(["UTC", "Europe/Rome", "America/New_York", "Asia/Kolkata"])
MOMENTS = st.datetimes(
    min_value=datetime(2025, 1, 1), max_value=datetime(2028, 12, 31), timezones=st.just(UTC)
)
HOURS = st.integers(0, 23)
PERIOD = timedelta(hours=1)


def _inside(start: int, stop: int, hour: int) -> bool:
    return start <= hour < stop if start < stop else hour >= start or hour < stop


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HOURS, HOURS, ZONES, MOMENTS)
def test_quiet_hours_end_at_their_hour_and_not_before(
    start: int, stop: int, zone: str, now: datetime
) -> None:
    settings = Settings(quiet=(start, stop), zone=zone)
    until = quiet_until(settings, now)
    local = now.astimezone(ZoneInfo(zone))
    if start == stop or not _inside(start, stop, local.hour):
        assert until is None
        return
    assert until is not None and now < until <= now + timedelta(hours=26)
    # Its hour, or the next one where a clock change skips it.
    assert until.astimezone(ZoneInfo(zone)).hour in (stop, (stop + 1) % 24)
    assert quiet_until(settings, until) is None


@given(st.sampled_from(KINDS), MOMENTS, st.integers(1, 10**6))
def test_nothing_goes_by_direct_message_unless_chosen(kind: str, now: datetime, channel: int):
    assert route(Settings(), kind, channel, now, None, PERIOD).action is Action.DROP
    assert mentioned(Settings(), kind, channel)


@given(st.sampled_from(KINDS), MOMENTS, st.booleans(), st.integers(0, 120))
def test_a_digest_or_a_recent_message_never_sends_now(
    kind: str, now: datetime, digest: bool, minutes_ago: int
) -> None:
    settings = Settings(digest=digest).with_via([kind], Via.DM)
    last = now - timedelta(minutes=minutes_ago)
    action = route(settings, kind, 1, now, last, PERIOD).action
    assert action is (Action.DIGEST if digest or minutes_ago < 60 else Action.SEND)


@given(st.sampled_from(KINDS), st.sampled_from(list(Via)), st.integers(1, 10**6))
def test_a_block_turns_direct_messages_back_into_mentions(kind: str, via: Via, channel: int):
    blocked = Settings(blocked=True).with_via([kind], Via.OFF)
    blocked = Settings.of_value(blocked.to_value() | {"via": {kind: str(via)}})
    assert not blocked.via_of(kind).direct
    assert mentioned(blocked, kind, channel) is (via is not Via.OFF)


@given(st.sampled_from(KINDS), st.sampled_from(list(Via)), MOMENTS, st.integers(1, 10**6))
def test_a_muted_game_says_nothing(kind: str, via: Via, now: datetime, channel: int) -> None:
    muted = Settings(muted=frozenset({channel})).with_via([kind], via)
    assert route(muted, kind, channel, now, None, PERIOD).action is Action.DROP
    assert not mentioned(muted, kind, channel)


@given(
    st.dictionaries(st.sampled_from(KINDS), st.sampled_from(list(Via))),
    ZONES,
    st.one_of(st.none(), st.tuples(HOURS, HOURS)),
    st.booleans(),
    st.frozensets(st.integers(1, 10**12), max_size=4),
    st.booleans(),
)
def test_settings_survive_their_record(via, zone, quiet, digest, muted, blocked) -> None:
    settings = Settings(via, zone, quiet, digest, muted, blocked)
    assert Settings.of_value(settings.to_value()) == settings
