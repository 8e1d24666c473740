"""The process's signer of links to the web pages, shared by every feature that gives one.

``/game web`` and ``/campaign web`` (`bot.service.web`) answer with a link, and a notice
(`bot.service.notices`) carries one to its game's page: each signs it for its one reader,
with the signer the web front end set at start (``ARBITRO_WEB_URL``; none: the pages are
off). It lives apart from both features so neither imports the other.
"""

from __future__ import annotations

from bot.web.links import Kind, LinkSigner


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


__all__ = ["link_signer", "page_url", "use_links"]
