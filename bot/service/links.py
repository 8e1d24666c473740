"""Personal signed links to a game's or a campaign's page.

A link names its page (a game or a campaign, by channel), its reader (a Discord user id,
or ``spectator``) and when it expires, signed with HMAC-SHA256 over the web secret. What
the link says of the reader is only who they are: their seat is read from the store each
time the page is served. A link whose signature does not match, or that has expired, is
refused (:class:`BadLink`).

Signing and checking a link is the service's work, not the web front end's: ``/game web``
and ``/campaign web`` (`bot.service.web`) and a notice (`bot.service.notices`) each sign
one for its reader with the process's signer (`use_links`, set at start when the pages are
on: ``ARBITRO_WEB_URL``), and the pages (`bot.web`) check the link they are asked for. It
lives apart from those features so none imports another.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Literal

#: The two kinds of page a link opens.
Kind = Literal["game", "campaign"]
KINDS: tuple[Kind, ...] = ("game", "campaign")
#: The reader of a spectator link (published by a referee): what every seat may see.
SPECTATOR = "spectator"
#: How long a link is good for unless the settings say otherwise.
DEFAULT_DAYS = 30


class BadLink(ValueError):
    """A link that is malformed, tampered with or expired."""


@dataclass(frozen=True, slots=True)
class Link:
    """What a link grants: ``reader`` (a user id, or None for a spectator) may read the
    page of ``kind`` in ``channel`` until ``expires`` (Unix seconds)."""

    kind: Kind
    channel: int
    reader: int | None
    expires: int

    @property
    def reader_text(self) -> str:
        """The reader as the link's path writes it."""
        return SPECTATOR if self.reader is None else str(self.reader)

    @property
    def message(self) -> bytes:
        """The bytes the signature covers."""
        return f"{self.kind}/{self.channel}/{self.reader_text}/{self.expires}".encode()

    def path(self, signature: str) -> str:
        """The page's path under the base URL."""
        return f"/{self.kind}/{self.channel}/{self.reader_text}/{self.expires}/{signature}"

    def for_page(self, kind: Kind, channel: int) -> Link:
        """The same reader's link to another page, expiring at the same moment."""
        return Link(kind, channel, self.reader, self.expires)


class LinkSigner:
    """Signs and checks links with the web secret; builds their URLs on ``base_url``."""

    def __init__(self, secret: str, base_url: str, days: int = DEFAULT_DAYS) -> None:
        if not secret:
            raise ValueError("a web secret is required to sign links")
        self._key = secret.encode()
        self.base_url = base_url.rstrip("/")
        self.days = days

    def signature(self, link: Link) -> str:
        """The link's signature: HMAC-SHA256, URL-safe base64 without padding."""
        digest = hmac.new(self._key, link.message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def link(self, kind: Kind, channel: int, reader: int | None, now: float | None = None) -> Link:
        """A new link for ``reader`` expiring ``days`` from ``now``."""
        moment = time.time() if now is None else now
        return Link(kind, channel, reader, int(moment) + self.days * 86_400)

    def url(self, link: Link) -> str:
        """The full address of ``link``'s page."""
        return self.base_url + self.relative(link)

    def relative(self, link: Link) -> str:
        """``link``'s path, signed (for links between pages)."""
        return link.path(self.signature(link))

    def check(
        self,
        kind: str,
        channel: str,
        reader: str,
        expires: str,
        signature: str,
        now: float | None = None,
    ) -> Link:
        """The link these path parts make, if signed by this secret and not expired."""
        if kind not in KINDS:
            raise BadLink("unknown page kind")
        if not (channel.isdigit() and expires.isdigit()):
            raise BadLink("malformed link")
        if reader != SPECTATOR and not reader.isdigit():
            raise BadLink("malformed reader")
        link = Link(
            "game" if kind == "game" else "campaign",
            int(channel),
            None if reader == SPECTATOR else int(reader),
            int(expires),
        )
        # Compared in constant time whatever its length, before anything else is told.
        if not hmac.compare_digest(self.signature(link).encode(), signature.encode()):
            raise BadLink("bad signature")
        if link.expires < (time.time() if now is None else now):
            raise BadLink("expired")
        return link


class _Links:
    """The signer, set once at start when the web pages are on."""

    signer: LinkSigner | None = None


def use_links(signer: LinkSigner | None) -> None:
    """Sign the links the service gives with ``signer`` (None: the web pages are off)."""
    _Links.signer = signer


def link_signer() -> LinkSigner | None:
    """The signer, or None while the web pages are off."""
    return _Links.signer


def page_url(kind: Kind, channel: int, reader: int) -> str | None:
    """The address of the page of ``kind`` in ``channel``, signed for ``reader`` alone (a
    link says who reads it: never give one reader's to another); None with no web pages."""
    signer = _Links.signer
    if signer is None:
        return None
    return signer.url(signer.link(kind, channel, reader))


__all__ = [
    "DEFAULT_DAYS",
    "KINDS",
    "SPECTATOR",
    "BadLink",
    "Kind",
    "Link",
    "LinkSigner",
    "link_signer",
    "page_url",
    "use_links",
]
