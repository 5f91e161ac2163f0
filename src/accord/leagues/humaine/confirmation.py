"""Generation 2's deal confirmation: before an agent's Accept goes out as a deal, the
orchestrator asks each human UI to ``/confirmAccept`` it.

The Accept is *held*: its money is reserved at once (R1), but nobody hears of it until
the UIs answer. It is released as a permitted message only when a UI acknowledges it and
none declines. Buying needs the buyer's yes, so everything else **fails closed**: a UI
that declines, or no acknowledgement at all (no answer in time, a refused connection, an
HTTP error, only abstentions), blocks the Accept after all: rule "confirm", the money
comes back, the seller gets ``/receiveRejection`` with the reason and the log says not
permitted. A UI that is no buyer (the competition manager) answers ``abstained``: it
neither confirms nor declines.

The question goes on each UI's *confirmation channel*, an :class:`accord.web.delivery.Outbox` of its
own with a long timeout: a person may take a while to click Confirm, and meanwhile every
other message still reaches the UI (and everybody else) at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from accord.web.delivery import Outbox

__all__ = ["ABSTAINED", "DECLINED", "UNCONFIRMED", "acknowledged", "confirm"]

DECLINED = "Deal declined by the buyer"
"""Start of the rationale of an Accept the buyer declined."""
UNCONFIRMED = "Deal not confirmed by the buyer"
"""Start of the rationale of an Accept nobody acknowledged (it fails closed)."""
ABSTAINED = "abstained"
"""The ``status`` of a UI that is no buyer (it neither confirms nor declines)."""


def acknowledged(response: Any) -> bool | None:
    """True for an answer whose ``status`` starts with "ack", None for no answer
    (timeout, refused connection, HTTP error) or an abstention, False for any other
    answer.

    >>> acknowledged({"status": "acknowledged"}), acknowledged({"status": "declined"})
    (True, False)
    >>> acknowledged(None) is None, acknowledged({"status": "abstained"}) is None
    (True, True)
    """
    if response is None:
        return None
    status = str(response.get("status", "") if isinstance(response, dict) else "").lower()
    if status == ABSTAINED:
        return None
    return status.startswith("ack")


async def confirm(channels: Sequence[Outbox], body: dict[str, Any]) -> str | None:
    """Ask every UI (on its confirmation channel) to confirm the Accept ``body``.
    Returns None when the deal stands (a UI acknowledged it and none declined), else
    why not: declined, or not confirmed at all (fail closed)."""
    answers = await asyncio.gather(*(ch.send("/confirmAccept", body) for ch in channels))
    yes = False
    silent: list[str] = []
    for delivery in answers:
        response = delivery.response if delivery.ok else None
        verdict = acknowledged(response)
        if verdict is False:
            why = response.get("rationale") if isinstance(response, dict) else None
            return f"{DECLINED}: {why or 'the answer was ' + repr(response)}"
        if verdict:
            yes = True
        elif not delivery.ok:
            silent.append(f"{delivery.party}: {delivery.error}")
    if yes:
        return None
    detail = "; ".join(silent) or "no human UI confirms deals"
    return f"{UNCONFIRMED}: no confirmation arrived, so nothing was bought ({detail})"
