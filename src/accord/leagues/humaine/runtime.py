"""The orchestrator's engine room: rounds in progress, their schedules and deliveries.

:class:`Orchestrator` is used by the FastAPI app of :mod:`.orchestrator`; it can also
be driven directly from asyncio code. Every round is isolated: its own rules state,
log, outboxes and timer task.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import partial
from typing import Any

from pydantic import ValidationError

from accord.web.delivery import Delivery, Outbox

from .agents.intent import read_intent
from .confirmation import UNCONFIRMED, confirm
from .credentials import HASH_FIELD, TOKEN_FIELD, Credentials, digest, new_secret
from .messages import InitializeRound, PartySpec, RelayMessage, explain
from .parties import HumaineError, Party, RoundRuntime, infer_addressee, iso_now
from .round import Durations, LogEntry, Phase, Round
from .rules import HUMAN, Bid, Decision, RuleConfig, Utterance, to_cents
from .store import RoundRecord, RoundStore
from .utility import BuyerUtility, InvalidUtility, SellerUtility

__all__ = ["HumaineError", "Orchestrator", "Party", "RoundRuntime", "infer_addressee"]


log = logging.getLogger("accord.humaine.orchestrator")

HELD = "held"
"""The stored rule of a permitted Accept still waiting for the buyer's confirmation."""


class Orchestrator:
    """Rounds, rules, deliveries and persistence of one environment orchestrator."""

    def __init__(
        self,
        *,
        store: RoundStore | None = None,
        rule_config: RuleConfig | None = None,
        default_budget: float = 50.0,
        human_uis: list[PartySpec] | None = None,
        call_timeout: float = 5.0,
        confirm_timeout: float = 90.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        unauthenticated: Iterable[str] = (),
    ) -> None:
        self.store = store
        self.rule_config = rule_config or RuleConfig()
        self.default_budget = default_budget
        self.human_uis = list(human_uis or [])
        self.call_timeout = call_timeout
        self.confirm_timeout = confirm_timeout
        self.clock = clock
        self.wall = wall
        self.unauthenticated = frozenset(unauthenticated)
        """Speakers admitted without a secret in every round (the operator's list)."""
        self.rounds: dict[str, RoundRuntime] = {}

    # ------------------------------------------------------------- lifecycle
    async def open(self) -> None:
        if self.store is not None:
            self._restore()

    async def close(self) -> None:
        for rt in self.rounds.values():
            if rt.task is not None:
                rt.task.cancel()
            for task in list(rt.background):
                task.cancel()
            for box in rt.outboxes.values():
                await box.close()

    # ----------------------------------------------------------------- set-up
    def initialize(self, spec: InitializeRound, generation: int = 2) -> RoundRuntime:
        """Register a round (not yet started). Generation 1 has one global round: a
        whole-body start while any round is in progress is refused with the reason."""
        if generation == 1:
            now = self.clock()
            live = [rt for rt in self.rounds.values() if rt.live(now)]
            if live:
                rt = live[0]
                raise HumaineError(
                    409,
                    f"round {rt.round_id!r} is still in its {rt.round.phase(now).value} phase; "
                    "generation 1 has one global round, so a new whole-body /startRound "
                    "waits until it ends (or POST /endRound to end it now)",
                )
        round_id = spec.roundId or uuid.uuid4().hex
        old = self.rounds.get(round_id)
        if old is not None and old.round.phase(self.clock()) is not Phase.CREATED:
            raise HumaineError(409, f"round {round_id!r} already started; use a new roundId")
        try:
            sellers = {a.name: SellerUtility.from_wire(a.utilityFunction) for a in spec.agents}
            hu = spec.human.utilityFunction
            buyer = BuyerUtility.from_wire(hu) if hu else None
            budget = spec.budget(self.default_budget)
            to_cents(budget)  # a usable amount of money
        except (InvalidUtility, ValueError) as e:
            raise HumaineError(422, f"invalid round set-up: {e}") from None
        spec = self._secure(spec.model_copy(update={"roundId": round_id}))
        record = RoundRecord(
            round_id, hashed(spec.model_dump(mode="json")), Phase.CREATED, generation, self.wall()
        )
        rt = self._build(spec, record, sellers, buyer, budget)
        self.rounds.pop(round_id, None)  # set up again: listed as new, as the file has it
        self.rounds[round_id] = rt
        self._save(rt)
        return rt

    def _secure(self, spec: InitializeRound) -> InitializeRound:
        """The spec with a secret for every speaker the operator did not list as
        unauthenticated (fresh ones where none was given), kept with the round."""
        names = [a.name for a in spec.agents]
        listed = {a.name for a in spec.agents if not a.authenticated}
        if not spec.human.authenticated:
            listed.add(HUMAN)
        given = {a.name: a.token for a in spec.agents} | {HUMAN: spec.human.token}
        creds = Credentials.make([*names, HUMAN], given, listed | self.unauthenticated)
        agents = [
            a.model_copy(
                update={
                    "token": creds.token_for(a.name),
                    "authenticated": creds.authenticated(a.name),
                }
            )
            for a in spec.agents
        ]
        human = spec.human.model_copy(
            update={"token": creds.token_for(HUMAN), "authenticated": creds.authenticated(HUMAN)}
        )
        for name in sorted(creds.open):
            log.warning(
                "round %s admits %s WITHOUT authentication (listed as unauthenticated by the "
                "operator): anyone who can reach the orchestrator may speak as %s",
                spec.roundId,
                name,
                name,
            )
        return spec.model_copy(update={"agents": agents, "human": human})

    def _build(
        self,
        spec: InitializeRound,
        record: RoundRecord,
        sellers: dict[str, SellerUtility],
        buyer: BuyerUtility | None,
        budget: float,
    ) -> RoundRuntime:
        d = spec.durations
        ui_specs = spec.humanUIs if spec.humanUIs is not None else self.human_uis
        uis = [Party(u.name, u.base_url(), "ui") for u in ui_specs]
        rnd = Round(
            record.round_id,
            tuple(a.name for a in spec.agents),
            budget,
            Durations(d.warmUp, d.round, d.post),
            sellers,
            buyer,
            self.rule_config,
            self.clock,
            HUMAN,
            spec.roundNumber,
            track_delivery=True,
            # a seller's Accept must take an offer the buyer made, always (the buyer's
            # confirmation, where there is one, comes on top)
            seller_accepts_need_offer=True,
            read_intent=partial(read_intent, names=tuple(a.name for a in spec.agents)),
        )
        agents = {a.name: Party(a.name, a.base_url(), "agent") for a in spec.agents}
        speakers: list[tuple[str, Any]] = [(a.name, a) for a in spec.agents]
        speakers.append((HUMAN, spec.human))
        tokens = {name: p.token for name, p in speakers if p.token}
        digests = {
            name: p.model_extra[HASH_FIELD]
            for name, p in speakers
            if not p.token
            and p.authenticated
            and isinstance((p.model_extra or {}).get(HASH_FIELD), str)
        }
        open_ = {name for name, p in speakers if not p.authenticated}
        creds = Credentials(tokens, frozenset(open_), digests)
        return RoundRuntime(rnd, spec, record, agents, uis, creds)

    def _rearm(self, rt: RoundRuntime) -> None:
        """Fresh secrets for the speakers of a restored, not yet started round whose
        secrets are known only by their digests (they learn them in ``/setUtility``)."""
        creds = rt.credentials
        if not creds.digests:
            return
        tokens = dict(creds.tokens) | {name: new_secret() for name in creds.digests}
        rt.credentials = Credentials(tokens, creds.open)
        spec = dict(rt.record.spec)
        spec["agents"] = [
            a | {HASH_FIELD: digest(tokens[a["name"]])} if a.get("name") in creds.digests else a
            for a in spec.get("agents", [])
        ]
        if HUMAN in creds.digests:
            spec["human"] = dict(spec.get("human") or {}) | {HASH_FIELD: digest(tokens[HUMAN])}
        rt.record.spec = spec

    def resolve(self, round_id: str | None, purpose: str = "this message") -> RoundRuntime:
        """The round a request is about: by id, or the single round in progress."""
        if round_id:
            rt = self.rounds.get(round_id)
            if rt is None:
                known = ", ".join(sorted(self.rounds)[:10]) or "none"
                raise HumaineError(404, f"unknown roundId {round_id!r}; known rounds: {known}")
            return rt
        now = self.clock()
        live = [rt for rt in self.rounds.values() if rt.live(now)]
        if len(live) == 1:
            return live[0]
        if not live:
            raise HumaineError(409, f"no round is in progress to receive {purpose}")
        ids = ", ".join(rt.round_id for rt in live)
        raise HumaineError(
            409, f"{len(live)} rounds are in progress ({ids}); give a roundId for {purpose}"
        )

    # ------------------------------------------------------------- deliveries
    def _outbox(self, rt: RoundRuntime, party: Party, confirmations: bool = False) -> Outbox:
        """The party's ordered outbox; a UI's confirmations have their own, with the
        longer ``confirm_timeout``, so a person thinking never holds up the messages."""
        key = f"{party.url} confirmations" if confirmations else party.url
        box = rt.outboxes.get(key)
        if box is None:

            def failed(name: str, path: str, d: Delivery) -> None:
                entry = {"party": name, "route": path, "error": d.error, "t": rt.round.elapsed()}
                rt.delivery_errors.append(entry)
                del rt.delivery_errors[:-200]

            timeout = self.confirm_timeout if confirmations else self.call_timeout
            box = Outbox(party.name, party.url, timeout=timeout, on_failure=failed)
            rt.outboxes[key] = box
        return box

    def _send(
        self, rt: RoundRuntime, parties: list[Party], path: str, body: dict[str, Any]
    ) -> list[asyncio.Future[Delivery]]:
        return [self._outbox(rt, p).send(path, body) for p in parties]

    async def _gather(self, futures: list[asyncio.Future[Delivery]]) -> list[Any]:
        done = await asyncio.gather(*futures)
        return [d.response if d.ok else None for d in done]

    # ---------------------------------------------------------------- running
    async def start(self, round_id: str) -> list[Any]:
        """Send metadata and utilities, start the warm-up, schedule the phases."""
        rt = self.resolve(round_id)
        rnd = rt.round
        now = self.clock()
        if rnd.phase(now) is not Phase.CREATED:
            raise HumaineError(409, f"round {round_id!r} is already {rnd.phase(now).value}")
        self._rearm(rt)
        rnd.start(now)
        rt.record.started_wall = self.wall()
        rt.record.status = Phase.WARMUP
        self._save(rt)
        futures: list[asyncio.Future[Delivery]] = []
        meta = {
            "roundId": rt.round_id,
            "durations": rnd.durations.to_wire(),
            "humanBudget": {"currentUnit": "USD", "value": rnd.budget},
        }
        creds = rt.credentials
        secret = self._secret(creds, HUMAN)
        if creds.open:
            meta["unauthenticated"] = sorted(creds.open)
        if rt.record.generation == 2:
            futures += self._send(rt, rt.uis, "/sendRoundMetadata", meta | secret)
        if rnd.buyer_utility is not None:
            for ui in rt.uis:
                body = rnd.buyer_utility.to_wire() | {"name": ui.name, "roundId": rt.round_id}
                if creds.open:
                    body["unauthenticated"] = sorted(creds.open)
                futures += self._send(rt, [ui], "/setUtility", body | secret)
        for name, party in rt.agents.items():
            utility = rnd.seller_utilities[name].to_wire()
            body = utility | {"name": name, "roundId": rt.round_id} | self._secret(creds, name)
            futures += self._send(rt, [party], "/setUtility", body)
        rt.task = asyncio.get_running_loop().create_task(self._schedule(rt))
        replies = await self._gather(futures)
        # parties often echo the body they got (the original's agents echo the utility):
        # their secrets must not reach whoever started the round
        return list(withheld(replies, set(creds.tokens.values())))

    @staticmethod
    def _secret(creds: Credentials, speaker: str) -> dict[str, str]:
        """``{"token": secret}`` for the party that speaks as ``speaker`` (or nothing)."""
        token = creds.token_for(speaker)
        return {TOKEN_FIELD: token} if token else {}

    async def _sleep_until(self, rt: RoundRuntime, target: Callable[[], float | None]) -> None:
        # a clock with its own ``wait_for`` (accord.web.clock: a VirtualClock in tests)
        # times the phases too; a plain callable is waited on in real time
        wait_for = getattr(self.clock, "wait_for", None)
        while True:
            rt.changed.clear()
            when = target()
            remaining = 0.0 if when is None else when - self.clock()
            if remaining <= 0:
                return
            with contextlib.suppress(TimeoutError):
                if wait_for is not None:
                    await wait_for(rt.changed.wait(), remaining)
                else:
                    await asyncio.wait_for(rt.changed.wait(), timeout=remaining)

    def _everyone(self, rt: RoundRuntime) -> list[Party]:
        return [*rt.uis, *rt.agents.values()]

    def _stamp(self, rt: RoundRuntime, body: dict[str, Any]) -> dict[str, Any]:
        if rt.round.round_number is not None:
            body["roundNumber"] = rt.round.round_number
        return body

    async def _schedule(self, rt: RoundRuntime) -> None:
        """Run a started round through its phases; ``rt.record.status`` is the last
        phase reached (kept in the store, so a restarted orchestrator goes on from it).
        If anything breaks, the round is failed, stored as such and the parties told."""
        rnd = rt.round
        try:
            if rt.record.status in (Phase.CREATED, Phase.WARMUP):
                await self._sleep_until(rt, lambda: rnd.warmup_end)
                body = {"roundId": rt.round_id, "roundDuration": rnd.durations.round}
                body["timestamp"] = iso_now()
                self._send(rt, self._everyone(rt), "/startRound", self._stamp(rt, body))
                self._reached(rt, Phase.ACTIVE)
            if rt.record.status in (Phase.CREATED, Phase.WARMUP, Phase.ACTIVE):
                await self._sleep_until(rt, lambda: rnd.active_end)
                body = {"roundId": rt.round_id, "timestamp": iso_now()}
                self._send(rt, self._everyone(rt), "/endRound", self._stamp(rt, body))
                self._reached(rt, Phase.POST)
            await self._sleep_until(rt, lambda: rnd.post_end)
            self._finish(rt)
        except asyncio.CancelledError:
            raise
        except Exception as e:  # the boundary of the round runner: fail the round, loudly
            log.exception("round %s failed in its %s phase", rt.round_id, rt.record.status)
            self._fail(rt, f"the round runner failed in the {rt.record.status} phase: {e!r}")

    def _reached(self, rt: RoundRuntime, phase: Phase) -> None:
        """Record that the round runner reached ``phase`` (only once it is stored)."""
        previous, rt.record.status = rt.record.status, phase
        try:
            self._save(rt)
        except Exception:
            rt.record.status = previous
            raise

    def _fail(self, rt: RoundRuntime, reason: str) -> None:
        """Stop a round that cannot go on: stored as failed, every party told."""
        rt.round.fail(reason)
        rt.record.status, rt.record.error = Phase.FAILED, reason
        try:
            self._save(rt)
        except Exception:  # the store itself may be what broke; the parties still hear
            log.exception("round %s: its failed state could not be stored", rt.round_id)
        body = {"roundId": rt.round_id, "timestamp": iso_now(), "failed": reason}
        self._send(rt, self._everyone(rt), "/endRound", self._stamp(rt, body))

    def _finish(self, rt: RoundRuntime) -> None:
        totals = rt.round.results().to_wire(rt.round.human)
        rt.record.results = totals
        self._reached(rt, Phase.ENDED)
        body = self._stamp(rt, {"roundId": rt.round_id, "roundTotals": totals})
        self._send(rt, rt.uis, "/receiveRoundTotals", body)
        rt.task = asyncio.get_running_loop().create_task(self._retire(rt))

    async def _retire(self, rt: RoundRuntime) -> None:
        """After the totals went out, close the round's connections to its parties."""
        boxes = list(rt.outboxes.values())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(b.drain() for b in boxes)), self.call_timeout * 4
            )
        for key, box in list(rt.outboxes.items()):
            if box in boxes:
                await box.close()
                del rt.outboxes[key]

    def end(self, round_id: str | None) -> RoundRuntime:
        """Admin /endRound: end the negotiation now (or, in the post phase, the round)."""
        rt = self.resolve(round_id, "/endRound")
        rnd = rt.round
        now = self.clock()
        phase = rnd.phase(now)
        if phase in (Phase.CREATED, Phase.ENDED, Phase.FAILED):
            state = {Phase.CREATED: "not started yet", Phase.ENDED: "already ended"}.get(
                phase, f"failed ({rt.record.error})"
            )
            raise HumaineError(409, f"round {rt.round_id!r} is {state}")
        if phase is Phase.POST:
            rnd.end(now)
        else:
            rnd.end_active(now)
        started = rnd.started_at or 0.0
        if rnd.active_ended_at is not None:
            rt.record.active_end = rnd.active_ended_at - started
        if rnd.post_ended_at is not None:
            rt.record.post_end = rnd.post_ended_at - started
        self._save(rt)
        rt.changed.set()
        return rt

    # --------------------------------------------------------------- messages
    async def relay(self, raw: Any, at: float, header_token: str | None = None) -> dict[str, Any]:
        """Judge and route one message received at server time ``at``."""
        if not isinstance(raw, dict):
            raise HumaineError(
                422, f"a message must be a JSON object, got {type(raw).__name__}: {raw!r:.80}"
            )
        rid = raw.get("roundId")
        try:
            rt = self.resolve(rid if isinstance(rid, str) else None, "/relayMessage")
        except HumaineError as e:
            if e.status == 409 and not rid:  # ambiguous: the sender hears it too
                self._reject_unrouted(raw, header_token, e.message, at)
            raise
        rnd = rt.round
        raw_speaker = raw.get("speaker")
        speaker = raw_speaker if isinstance(raw_speaker, str) else ""
        try:
            msg = RelayMessage.model_validate(raw)
        except ValidationError as e:
            why = f"invalid message: {explain(e)}"
            if speaker in rnd.parties():
                self._refuse(rt, raw, speaker, "invalid", why, at)
            raise HumaineError(422, why) from None
        if msg.speaker not in rnd.parties():
            parties = ", ".join(rnd.parties())
            why = f"Unknown speaker {msg.speaker!r}: this round's parties are {parties}"
            self._refuse(rt, raw, msg.speaker, "speaker", why, at)
            raise HumaineError(403, why)
        is_human = msg.speaker == rnd.human
        if msg.role is not None and msg.role != ("buyer" if is_human else "seller"):
            why = (
                f"{msg.speaker} is registered as the {'buyer' if is_human else 'seller'} "
                f"of this round; a message with role {msg.role!r} cannot come from it"
            )
            self._refuse(rt, raw, msg.speaker, "speaker", why, at)
            raise HumaineError(403, why)
        why_not = rt.credentials.check(msg.speaker, msg.token or header_token)
        if why_not is not None:
            log.warning("round %s: forged or unproven speaker refused: %s", rt.round_id, why_not)
            self._refuse(rt, raw, msg.speaker, "token", why_not, at)
            raise HumaineError(403, why_not)
        forward = self._forward_body(rt, raw, msg)
        bid = None
        if msg.bid is not None:
            price = None if msg.bid.price is None else msg.bid.price.value
            bid = Bid(msg.bid.type, msg.bid.quantity, price)
        intent = read_intent(msg.text, rnd.agents) if is_human and bid is None else None
        utt = Utterance(msg.speaker, msg.text, forward.get("addressee") or "", bid, intent)
        decision = rnd.submit(utt, now=at, wire=forward)
        entry = rnd.log[-1]
        held = decision.permitted and decision.deal and self._held(rt, decision)
        self._persist_entry(rt, replace(entry, rule=HELD) if held else entry)
        self._route(rt, forward, decision, entry)
        reply: dict[str, Any] = {
            "status": "Acknowledged" if decision.permitted else "Blocked",
            "roundId": rt.round_id,
            "permitted": decision.permitted,
            "rule": decision.rule,
            "rationale": decision.rationale,
            "allResponses": [],
        }
        if decision.permitted and decision.deal and self._held(rt, decision):
            reply["awaiting"] = "the buyer's confirmation"  # then released or blocked
        return reply

    def _reject_unrouted(
        self, raw: dict[str, Any], header_token: str | None, why: str, at: float
    ) -> None:
        """Send a message no round could take back to its sender: to the agent of that
        name (or, for "Human", the UIs) in every round in progress where the sender
        proves who it is."""
        speaker = raw.get("speaker")
        if not isinstance(speaker, str):
            return
        given = raw.get(TOKEN_FIELD) if isinstance(raw.get(TOKEN_FIELD), str) else header_token
        body = {k: v for k, v in raw.items() if k != TOKEN_FIELD} | {"rationale": why}
        told: set[str] = set()
        now = self.clock()
        for rt in self.rounds.values():
            if not rt.live(now) or rt.credentials.check(speaker, given) is not None:
                continue
            parties = rt.uis if speaker == rt.round.human else [rt.agents.get(speaker)]
            to = [p for p in parties if p is not None and p.url not in told]
            told.update(p.url for p in to)
            if to:
                self._send(rt, to, "/receiveRejection", body)

    def _forward_body(
        self, rt: RoundRuntime, raw: dict[str, Any], msg: RelayMessage
    ) -> dict[str, Any]:
        body = {k: v for k, v in raw.items() if k not in (TOKEN_FIELD, "authenticated")}
        body["roundId"] = rt.round_id
        if not rt.authenticated(msg.speaker):
            body["authenticated"] = False  # the UIs and the log say so
        is_human = msg.speaker == rt.round.human
        if not body.get("role"):
            body["role"] = "buyer" if is_human else "seller"
        if is_human and not body.get("addressee"):
            body["addressee"] = infer_addressee(msg.text, rt.round.agents)
        body.setdefault("addressee", "")
        if msg.bid is not None:
            body["bid"] = msg.bid.model_dump(mode="json", exclude_none=True)
        return body

    def _refuse(
        self, rt: RoundRuntime, raw: dict[str, Any], speaker: str, rule: str, why: str, at: float
    ) -> None:
        raw_text, raw_to = raw.get("text"), raw.get("addressee")
        text = raw_text if isinstance(raw_text, str) else ""
        addressee = raw_to if isinstance(raw_to, str) else ""
        rt.round.record_refusal(Utterance(speaker or "?", text[:2000], addressee), rule, why, at)
        entry = rt.round.log[-1]
        self._persist_entry(rt, entry)
        body = {k: v for k, v in raw.items() if k != TOKEN_FIELD} | {"roundId": rt.round_id}
        if isinstance(body.get("text"), str):
            body["text"] = body["text"][:2000]
        self._send(rt, rt.uis, "/receiveLog", body | {"permitted": False, "rationale": why})
        if rule == "invalid":  # the sender is told, as for a blocked message
            to = [rt.agents[speaker]] if speaker in rt.agents else rt.uis
            self._send(rt, to, "/receiveRejection", body | {"rationale": why})

    def _persist_entry(self, rt: RoundRuntime, entry: LogEntry) -> None:
        if self.store is not None:
            self.store.add_decision(rt.round_id, entry, self.wall())
            if entry.deal:
                for p in rt.round.purchases:
                    if p.seq == entry.seq:
                        self.store.save_purchase(rt.round_id, p)

    def _route(self, rt: RoundRuntime, body: dict[str, Any], d: Decision, entry: LogEntry) -> None:
        if d.permitted and d.deal and self._held(rt, d):
            task = asyncio.get_running_loop().create_task(self._confirm(rt, body, d, entry))
            rt.background.add(task)
            task.add_done_callback(rt.background.discard)
            return
        if d.permitted:
            self._release(rt, body, d)
        else:
            rejection = body | {"rationale": d.rationale}
            if d.speaker in rt.agents:
                self._send(rt, [rt.agents[d.speaker]], "/receiveRejection", rejection)
            else:
                self._send(rt, rt.uis, "/receiveRejection", rejection)
        logged = body | {"permitted": d.permitted, "rationale": d.rationale}
        self._send(rt, rt.uis, "/receiveLog", logged)

    def _release(self, rt: RoundRuntime, body: dict[str, Any], d: Decision) -> None:
        """A permitted message goes out: to the UIs with its bid, to every agent without."""
        self._send(rt, rt.uis, "/receiveMessage", body)
        bare = {k: v for k, v in body.items() if k != "bid"}
        engine = rt.round.engine
        for name, party in rt.agents.items():
            seen = (lambda n=name, at=d.at: engine.mark_seen(n, at)) if d.speaker != name else None
            self._outbox(rt, party).send("/receiveMessage", bare, before=seen)

    @staticmethod
    def _held(rt: RoundRuntime, d: Decision) -> bool:
        """Whether a deal waits for the human UIs' confirmation (generation 2, an
        agent's Accept, a UI to ask)."""
        return rt.record.generation == 2 and d.speaker in rt.agents and bool(rt.uis)

    async def _confirm(
        self, rt: RoundRuntime, body: dict[str, Any], d: Decision, entry: LogEntry
    ) -> None:
        """Hold an agent's Accept until the UIs answer; release it, or block it."""
        channels = [self._outbox(rt, ui, confirmations=True) for ui in rt.uis]
        declined = await confirm(channels, body)
        if declined is None:
            self._persist_entry(rt, entry)  # no longer held: a restart keeps it
            self._release(rt, body, d)
            logged = body | {"permitted": True, "rationale": d.rationale}
            self._send(rt, rt.uis, "/receiveLog", logged)
            return
        blocked = rt.round.decline_deal(entry.seq, declined)
        if blocked is None:
            return
        self._persist_entry(rt, blocked)
        if self.store is not None:
            for p in rt.round.purchases:
                if p.seq == entry.seq:
                    self.store.save_purchase(rt.round_id, p)
        log.info("round %s: %s's Accept blocked: %s", rt.round_id, d.speaker, declined)
        self._send(rt, [rt.agents[d.speaker]], "/receiveRejection", body | {"rationale": declined})
        self._send(rt, rt.uis, "/receiveLog", body | {"permitted": False, "rationale": declined})

    # ------------------------------------------------------------- allocation
    def allocate(
        self, round_id: str | None, products: dict[str, Any], token: str | None = None
    ) -> RoundRuntime:
        """Save the buyer's allocation: only the buyer may (its secret, ``token``)."""
        from .scoring import Allocation, InvalidAllocation

        rt = self.resolve(round_id, "/receiveHumanAllocation")
        why_not = rt.credentials.check(rt.round.human, token)
        if why_not is not None:
            log.warning("round %s: forged allocation refused: %s", rt.round_id, why_not)
            raise HumaineError(403, f"only the buyer saves the allocation: {why_not}")
        phase = rt.round.phase(self.clock())
        if phase is not Phase.POST:
            raise HumaineError(
                409, f"allocations are saved during the post-round phase; round is {phase.value}"
            )
        try:
            allocation = Allocation.from_wire(products)
            rt.round.set_allocation(allocation)
        except InvalidAllocation as e:
            raise HumaineError(422, f"invalid allocation: {e}") from None
        rt.record.allocation = allocation.to_wire()
        self._save(rt)
        return rt

    # ------------------------------------------------------------ persistence
    def _save(self, rt: RoundRuntime) -> None:
        if self.store is not None:
            self.store.save_round(rt.record)

    def _restore(self) -> None:
        from .scoring import Allocation

        assert self.store is not None
        for rec in self.store.load_rounds():
            spec = InitializeRound.model_validate(rec.spec)
            try:
                sellers = {a.name: SellerUtility.from_wire(a.utilityFunction) for a in spec.agents}
                hu = spec.human.utilityFunction
                buyer = BuyerUtility.from_wire(hu) if hu else None
            except InvalidUtility:
                log.exception("stored round %s is unreadable; skipped", rec.round_id)
                continue
            rt = self._build(spec, rec, sellers, buyer, spec.budget(self.default_budget))
            if rec.spec != hashed(rec.spec):  # a file written with plain secrets: rewrite
                rec.spec = hashed(rec.spec)
                self._save(rt)
            started = None
            if rec.started_wall is not None:
                started = self.clock() - (self.wall() - rec.started_wall)
            rt.round.restore(
                self.store.load_log(rec.round_id),
                self.store.load_purchases(rec.round_id),
                started,
                rec.active_end,
                rec.post_end,
            )
            if rec.allocation is not None:
                rt.round.allocation = Allocation.from_wire(rec.allocation)
            self._unhold(rt)
            self.rounds[rec.round_id] = rt
            if rec.status is Phase.FAILED:
                rt.round.fail(rec.error or "failed before a restart")
            elif rec.status not in (Phase.CREATED, Phase.ENDED):
                rt.task = asyncio.get_running_loop().create_task(self._schedule(rt))

    def _unhold(self, rt: RoundRuntime) -> None:
        """Deals still held for the buyer's confirmation when the orchestrator stopped:
        nobody can answer for them any more, so they are no deals (fail closed)."""
        for e in list(rt.round.log):
            if e.permitted and e.deal and e.rule == HELD:
                why = f"{UNCONFIRMED}: the orchestrator restarted before the buyer answered"
                blocked = rt.round.decline_deal(e.seq, why)
                if blocked is not None:
                    self._persist_entry(rt, blocked)
                    if self.store is not None:
                        for p in rt.round.purchases:
                            if p.seq == e.seq:
                                self.store.save_purchase(rt.round_id, p)
                    log.warning("round %s: held deal %d dropped at restart", rt.round_id, e.seq)

    # ---------------------------------------------------------------- reading
    def describe(self, rt: RoundRuntime, full: bool = True) -> dict[str, Any]:
        rnd = rt.round
        now = self.clock()
        out: dict[str, Any] = {
            "roundId": rt.round_id,
            "roundNumber": rnd.round_number,
            "generation": rt.record.generation,
            "phase": rnd.phase(now).value,
            "elapsed": rnd.elapsed(now),
            "durations": rnd.durations.to_wire(),
            "agents": list(rnd.agents),
            "budget": rnd.initial_budget,
            "remainingBudget": rnd.remaining_budget,
            "purchases": rnd.human_quantity(),
            "unauthenticated": sorted(rt.credentials.open),
        }
        if rt.record.error is not None:
            out["error"] = rt.record.error
        if full:
            out["decisions"] = [e.__dict__ for e in rnd.log]
            out["deals"] = [p.__dict__ for p in rnd.purchases]
            out["allocation"] = rt.record.allocation
            out["results"] = rt.record.results
            out["deliveryErrors"] = rt.delivery_errors
        return out

    async def drain(self, round_id: str) -> None:
        """Wait until all deliveries queued for a round went out (tests, shutdown)."""
        rt = self.resolve(round_id)
        await asyncio.gather(*(b.drain() for b in list(rt.outboxes.values())))


def withheld(value: Any, secrets: set[str]) -> Any:
    """``value`` with every secret taken out: ``token`` fields dropped, any text that
    holds one of ``secrets`` replaced by a notice.

    >>> withheld([{"status": "ok", "utility": {"token": "s3cret-xyz"}}, "s3cret-xyz"],
    ...          {"s3cret-xyz"})
    [{'status': 'ok', 'utility': {}}, '(a secret, withheld)']
    """
    if isinstance(value, dict):
        return {
            k: withheld(v, secrets) for k, v in value.items() if k not in (TOKEN_FIELD, HASH_FIELD)
        }
    if isinstance(value, list):
        return [withheld(v, secrets) for v in value]
    if isinstance(value, str) and any(s and s in value for s in secrets):
        return "(a secret, withheld)"
    return value


def hashed(spec: dict[str, Any]) -> dict[str, Any]:
    """A stored round set-up: each speaker's secret replaced by its digest.

    >>> out = hashed({"agents": [{"name": "Celia", "token": "s3cret"}], "human": {}})
    >>> "token" in out["agents"][0], out["agents"][0]["tokenHash"][:7], out["human"]
    (False, 'sha256$', {})
    """

    def one(party: Any) -> Any:
        if not isinstance(party, dict):
            return party
        token = party.get(TOKEN_FIELD)
        out = {k: v for k, v in party.items() if k != TOKEN_FIELD}
        if isinstance(token, str) and token:
            out[HASH_FIELD] = digest(token)
        return out

    out = dict(spec)
    if isinstance(spec.get("agents"), list):
        out["agents"] = [one(a) for a in spec["agents"]]
    if "human" in spec:
        out["human"] = one(spec["human"])
    return out
