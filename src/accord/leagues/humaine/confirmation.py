"""Generation 2's deal confirmation: the orchestrator asks each human UI to
``/confirmAccept`` a deal and cancels it (refunding the budget) unless the answer is
"acknowledged".

The question goes on the UI's *confirmation channel*, an :class:`~.fanout.Outbox` of its
own with a long timeout, and only after the Accept message itself went out to that UI:
a person may take seconds to click Confirm, and meanwhile every other message still
reaches the UI (and everybody else) at once.
"""

from __future__ import annotations

import asyncio
from typing import Any

from .fanout import Delivery, Outbox
from .parties import RoundRuntime
from .store import RoundStore

__all__ = ["acknowledged", "ask_to_confirm", "settle"]


def acknowledged(response: Any) -> bool | None:
    """True for an answer whose ``status`` starts with "ack", False for any other
    answer, None for no answer (timeout, refused connection, HTTP error).

    >>> acknowledged({"status": "acknowledged"}), acknowledged({"status": "declined"})
    (True, False)
    >>> acknowledged(None) is None
    True
    """
    if response is None:
        return None
    status = response.get("status", "") if isinstance(response, dict) else ""
    return str(status).lower().startswith("ack")


def settle(rt: RoundRuntime, seq: int, response: Any, store: RoundStore | None) -> bool:
    """Apply a UI's answer about the deal of log entry ``seq``: an answer other than
    "acknowledged" cancels the deal and refunds the budget; silence leaves the deal
    standing (a party without the route, such as the manager, must not undo deals).
    Returns whether the deal was cancelled now."""
    if acknowledged(response) is not False:
        return False
    if not rt.round.cancel_deal(seq):
        return False
    if store is not None:
        for p in rt.round.purchases:
            if p.seq == seq:
                store.save_purchase(rt.round_id, p)
    return True


def ask_to_confirm(
    rt: RoundRuntime,
    channel: Outbox,
    sent: asyncio.Future[Delivery],
    body: dict[str, Any],
    seq: int,
    store: RoundStore | None,
) -> None:
    """Once ``sent`` (the Accept's delivery to the UI) is done, queue /confirmAccept on
    the UI's confirmation ``channel`` and settle the deal with the answer."""

    def answered(response: dict[str, Any] | None) -> None:
        settle(rt, seq, response, store)

    sent.add_done_callback(lambda _: channel.send("/confirmAccept", body, answered))
