"""A campaign's pages as text: the server's listing, and the status with the games the
store refuses named after it, in the reader's language."""

from __future__ import annotations

from rules.campaign.events import (
    CampaignCreated,
    CampaignGame,
    CampaignJoined,
    CampaignResult,
    Points,
)
from rules.campaign.state import CampaignState, replay
from rules.campaign.text import (
    ListedCampaign,
    ListingPage,
    StatusPage,
    page_lines,
    status_lines,
)
from rules.core.errors import InvalidInput

NORMANDIA = ListedCampaign(channel=500, name="Normandia", ruleset="manovra", games=2, ended=True)
ORBITA = ListedCampaign(channel=600, name="Orbita", ruleset="w40k4", games=1, ended=False)


def _state() -> CampaignState:
    return replay(
        [
            CampaignCreated(
                ruleset="manovra",
                name="Normandia",
                points=Points(win=3, draw=1, loss=0),
                sides={"alleati": "Alleati", "asse": "Asse"},
                referee=1,
            ),
            CampaignJoined(side="alleati", user=2),
            CampaignGame(number=1, channel=100, scenario="a"),
            CampaignResult(
                number=1,
                winner="alleati",
                scores={"alleati": 5, "asse": 1},
                ending="turn_limit",
                final_hash="0123456789abcdef",
            ),
            CampaignGame(number=2, channel=101, scenario="b"),
        ]
    )


def test_the_listing_names_each_campaign_by_its_channel_as_the_reader_sees_it() -> None:
    in_guild = page_lines(ListingPage((NORMANDIA, ORBITA), in_guild=True), "en")
    assert in_guild == [
        "Campaigns in this server:",
        "<#500>: «Normandia» (manovra), 2 games, over",
        "<#600>: «Orbita» (w40k4), 1 game",
    ]
    at_the_console = page_lines(ListingPage((ORBITA,), in_guild=False), "fr")
    assert at_the_console[1].startswith("#600\u202f: «\u202fOrbita\u202f»")


def test_a_listing_of_nothing_says_how_to_start_but_not_when_campaigns_were_unreadable() -> None:
    assert page_lines(ListingPage((), in_guild=True), "en") == [
        "No campaign in this server: /campaign new starts one in a channel of its own."
    ]
    # Campaigns exist but none could be read: the heading stands alone, not "none".
    assert page_lines(ListingPage((), in_guild=True, unread=1), "en") == [
        "Campaigns in this server:"
    ]


def test_the_status_page_reads_as_the_status_then_each_refused_game() -> None:
    state = _state()
    refused = InvalidInput("error.campaign.unknown_side", side="x", known="Alleati, Asse")
    lines = page_lines(StatusPage(state, in_guild=True, unreadable=(refused,)), "en")
    assert lines[:-1] == status_lines(state, "en", True)
    assert lines[-1] == refused.localized("en")
    assert "2. <#101> (b): in play" in lines
    assert "1. <#100> (a): Alleati won, Alleati 5 – Asse 1; final hash 0123456789ab" in lines
