"""The log's rate limit: free rolls and joins per user and channel, tighter without a seat,
shared by every front end, answered in the asker's language with when to try again."""

from __future__ import annotations

import io

import pytest

from bot.app.settings import load_settings
from bot.console.table import Console
from bot.service import GameService, Request
from bot.service.limits import LogLimiter, LogLimits, TooMany
from rules.core.errors import RulesError
from rules.core.i18n import translate

CHANNEL = 40
REFEREE, ANNA, STRANGER, OTHER = 1, 2, 3, 4


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture()
def clock() -> Clock:
    return Clock()


@pytest.fixture()
def limited(store, clock) -> GameService:
    return GameService(store, limits=LogLimiter(LogLimits(), clock=clock))


def roll(user: int, n: int, channel: int = CHANNEL, **extra: object) -> Request:
    return Request(
        channel,
        user,
        "roll",
        {"expression": "2d6"},
        interaction_id=f"r-{channel}-{user}-{n}",
        **extra,  # type: ignore[arg-type]
    )


async def new_game(service: GameService, language: str = "en", channel: int = CHANNEL) -> None:
    await service.handle(
        Request(
            channel, REFEREE, "game.new", {"scenario": "esempio_normandia", "language": language}
        )
    )


async def test_a_strangers_eleventh_roll_in_a_window_is_refused_in_their_language(limited, clock):
    for n in range(10):  # one a second
        await limited.handle(roll(STRANGER, n, locale="fr"))
        clock.now += 1
    clock.now += 10
    with pytest.raises(TooMany) as refused:
        await limited.handle(roll(STRANGER, 10, locale="fr"))
    error = refused.value
    assert error.key == "error.service.limit.spectator" and error.wait == 40
    text = error.localized("fr")
    assert "réessayez dans 40 secondes" in text and "10 fois" in text
    assert "\u202f:" in text  # French typography: a narrow no-break space before the colon
    clock.now += 40  # the first roll left the window: one more is allowed, not two
    await limited.handle(roll(STRANGER, 11, locale="fr"))
    with pytest.raises(TooMany):
        await limited.handle(roll(STRANGER, 12, locale="fr"))


async def test_in_a_game_the_refusal_is_logged_nowhere_and_the_seated_roll_on(
    limited, store, clock
):
    await new_game(limited)
    await limited.handle(Request(CHANNEL, ANNA, "game.join", {"side": "alleati"}))
    for n in range(10):
        await limited.handle(roll(STRANGER, n))
    version = (await store.load(CHANNEL)).version
    with pytest.raises(TooMany):
        await limited.handle(roll(STRANGER, 10))
    assert (await store.load(CHANNEL)).version == version  # nothing logged
    # A seated player rolling a lot during the game never notices the limit...
    for n in range(120):
        await limited.handle(roll(ANNA, n))
    # ...up to a budget a game never reaches; the referee too is seated.
    with pytest.raises(TooMany) as refused:
        await limited.handle(roll(ANNA, 120))
    assert refused.value.key == "error.service.limit.seated"
    assert "Try again in 60 seconds" in refused.value.localized("en")
    await limited.handle(roll(REFEREE, 1))


async def test_the_limit_is_per_user_and_per_channel(limited, clock):
    for n in range(10):
        await limited.handle(roll(STRANGER, n))
    with pytest.raises(TooMany):
        await limited.handle(roll(STRANGER, 10))
    # Another channel, another count; another stranger here, their own count...
    await limited.handle(roll(STRANGER, 0, channel=CHANNEL + 1))
    for n in range(10):
        await limited.handle(roll(OTHER, n))
    for n in range(10):
        await limited.handle(roll(OTHER + 1, n))
    # ...until all the strangers of the channel together reach its own limit (30).
    with pytest.raises(TooMany) as refused:
        await limited.handle(roll(OTHER + 2, 0))
    assert refused.value.key == "error.service.limit.channel"
    assert "riprova tra 60 secondi" in refused.value.localized("it")
    await limited.handle(roll(OTHER + 2, 0, channel=CHANNEL + 1))


async def test_new_interaction_ids_do_not_bypass_it_and_a_retry_is_not_counted(limited, store):
    await new_game(limited)
    first = await limited.handle(roll(STRANGER, 0))
    for _ in range(5):  # the same interaction retried: its first answer, not a new roll
        again = await limited.handle(roll(STRANGER, 0))
        assert again.duplicate and again.seq == first.seq
    for n in range(1, 10):
        await limited.handle(roll(STRANGER, n))
    for n in range(10, 20):  # fresh ids are fresh commands
        with pytest.raises(TooMany):
            await limited.handle(roll(STRANGER, n))


async def test_joining_is_counted_for_someone_without_a_seat(limited, store):
    await new_game(limited)
    for n in range(5):
        await limited.handle(
            Request(CHANNEL, STRANGER, "game.join", {"side": "alleati"}, interaction_id=f"j{n}")
        )
        await limited.handle(Request(CHANNEL, STRANGER, "game.leave", {}, interaction_id=f"l{n}"))
    with pytest.raises(TooMany) as refused:
        await limited.handle(
            Request(CHANNEL, STRANGER, "game.join", {"side": "alleati"}, interaction_id="j-last")
        )
    assert refused.value.key == "error.service.limit.join"


async def test_spectators_rolling_never_use_up_a_players_join(limited, store):
    await new_game(limited)
    for spectator in (STRANGER, OTHER, 5):
        for n in range(10):
            await limited.handle(roll(spectator, n))
    with pytest.raises(TooMany):  # the seatless rolls of the channel are used up
        await limited.handle(roll(6, 0))
    await limited.handle(
        Request(CHANNEL, ANNA, "game.join", {"side": "asse"}, interaction_id="anna-joins")
    )
    seats = await store.members(CHANNEL)
    assert any(m.user_id == ANNA and m.side == "asse" for m in seats)


async def test_the_console_shares_the_limit(limited):
    out = io.StringIO()
    console = Console(limited, out, channel_id=CHANNEL, language="en")
    await console.run(["/as passer_by", *["/roll expression:d20"] * 11], interactive=False)
    lines = out.getvalue().splitlines()
    assert console.errors == 1
    assert lines[-1].startswith("! Without a seat here you may use /roll 10 times")


async def test_the_settings_set_the_limits(store, monkeypatch):
    monkeypatch.setenv("ARBITRO_ROLL_LIMIT", "2")
    monkeypatch.setenv("ARBITRO_ROLL_WINDOW", "5")
    monkeypatch.setenv("ARBITRO_ROLL_LIMIT_SEATED", "0")
    limits = LogLimits.from_settings(load_settings())
    assert limits == LogLimits(
        window_s=5, seatless_per_user=2, seatless_per_channel=30, seated_per_user=0
    )
    service = GameService(store, limits=limits)
    await service.handle(roll(STRANGER, 0))
    await service.handle(roll(STRANGER, 1))
    with pytest.raises(RulesError) as refused:
        await service.handle(roll(STRANGER, 2))
    assert refused.value.params["window"] == 5 and refused.value.params["wait"] <= 5
    assert translate("error.service.limit.spectator", "en", limit=2, window=5, wait=5)


def test_the_limiter_keeps_few_windows() -> None:
    clock = Clock()
    limiter = LogLimiter(LogLimits(), clock=clock, max_keys=100)
    for user in range(1000):
        limiter.admit(1, user, seated=True)
    assert len(limiter) <= 100
    clock.now += 61  # every window emptied: forgotten at the next command
    limiter.admit(2, 1, seated=True)
    assert len(limiter) == 1
