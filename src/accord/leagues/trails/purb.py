"""The PURB agent (Personality and Utility Rule Based), after the paper's section 3.1.

**Traits.** For both players PURB keeps *reliability* (chips sent after agreements over
chips promised, counted colour by colour: a chip of a colour that was not promised, or
beyond the promised count of its colour, keeps nothing, :func:`kept`) and *helpfulness* (share of a player's agreed proposals that offered more
chips than they asked for). Both are discounted ratios: after each agreement and transfer,
every past sum is multiplied by ``1 - discount`` (discount 0.1, the paper's rate) and the
new observation added. Priors: one promised chip kept (PURB starts out trusting and
reliable) and half a helpful proposal out of one.

    >>> t = Traits()
    >>> t.observe(promised=2, sent=0, proposed=None)     # broke a promise of two chips
    >>> round(t.reliability, 4)                         # 0.9 / (0.9 + 2)
    0.3103
    >>> kept(promised=(0, 1, 0), sent=(0, 0, 1))         # promised B, sent C: nothing kept
    0

**Hidden chips** (``visibility="own"``): PURB estimates the partner's chips
(:class:`~accord.leagues.trails.hidden.ChipBelief`) and plans on the expected counts as if
it saw them. Prior: the partner was dealt as many chips as PURB, spread evenly over the
colours; then every transfer is counted (chips PURB sent are added, chips the partner sent
are taken off), the partner's moves take off the colours of the squares on its shortest
path between its positions, and a proposal in which the partner offers chips shows it
holds at least those. Its transfers to a partner it is not certain of are judged on
*hands* the partner may hold (drawn from the deal, kept when they agree with what it
offered, sent and walked, and, once it stayed away from home after a movement phase, when
they could not walk home): PURB sends only the largest part of its promise that frees
none of them (``free_risk`` 0; above 0, a share of them weighted by the partner's last
request, see the class), since a freed partner walks home and ends the game with PURB's
chips; an exchange that also frees PURB, with a partner seen before, gets everything. The engine lets a player
ask for chips the other may not hold under ``"own"``; a partner who accepts and lacks them
sends less, which its reliability then records.

**Social utility** of a chip allocation: ``w_self * ES_i + w_other * ES_j + w_coop_j *
coop_j + w_coop_i * coop_i`` where ES is the expected future score (the best score reachable
with the chips, i.e. ``100 P - 10 d (1 - P) + 5 s``) and coop the mean of helpfulness and
reliability. Chosen weights (the paper gives rules, not numbers): ``w_self = 1``; ``w_other
= 0.1 + 0.4 * coop_j`` (a reliable, helpful partner's score counts more, as the paper's
example says), raised by 0.2 when PURB is task-dependent (it needs the partner);
``w_coop_i = 20`` per unit of the helpfulness its proposal shows (reputation); ``w_coop_j =
10``. Thresholds: reliability < 0.5 is low (one broken promise, even of one chip, makes
a partner low: 0.9 / 1.9 = 0.47), >= 0.8 high; epsilon 2 points; "half with a given
probability": 1.0 (else all); "all or a subset" when both stay dependent: a subset (half)
with probability 0.5; certainty: at least 2 observations of the partner; until then a
high reliability counts as medium (PURB keeps its word in full only to a partner it has
seen keep theirs, else the medium-reliability rules apply). All are :class:`PurbConfig` fields.

**Rules narrowing proposals:** no colour both given and asked; at most ``max_side`` chips
per side; never give up own task independence; no chips for a partner who is already
task-independent unless the trade raises PURB's own expected score; when PURB is dependent
and some proposal makes it independent, only those. **Acceptance** as the paper: accept when the offer is
worth at least PURB's own proposal, or when it keeps the game alive; an offer that makes
the partner independent while PURB stays dependent only with a reliable partner PURB is
certain of; an independent PURB neither proposes nor accepts giving chips it needs for its
own path (``keep_independence``). **Transfer** by the partner's reliability and the
dependency cases (:meth:`Purb.transfer_case`; docs/trails.md has the table and the reasons).
**Movement** (not in the paper): to the goal when possible, else to the best-scoring
square when the game may end this turn (``endgame_walk``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from accord.leagues.trails.agent import Agent, View, sub_vectors, walk_plan
from accord.leagues.trails.engine import Propose, TurnRecord
from accord.leagues.trails.hidden import ChipBelief

__all__ = ["ChipBelief", "Purb", "PurbConfig", "Traits", "kept"]  # ChipBelief: .hidden


def kept(promised: Sequence[int], sent: Sequence[int]) -> int:
    """Chips of a promise kept, colour by colour: ``sum_c min(sent_c, promised_c)``.

    >>> kept((2, 1, 0), (1, 1, 3))
    2
    """
    return sum(min(int(s), int(p)) for p, s in zip(promised, sent, strict=False))


@dataclass
class Traits:
    """Discounted reliability and helpfulness of one player."""

    discount: float = 0.1
    sent: float = 1.0
    promised: float = 1.0
    helpful: float = 0.5
    proposals: float = 1.0
    observations: int = 0

    @property
    def reliability(self) -> float:
        return self.sent / self.promised if self.promised > 0 else 1.0

    @property
    def helpfulness(self) -> float:
        return self.helpful / self.proposals if self.proposals > 0 else 0.5

    @property
    def cooperativeness(self) -> float:
        return (self.reliability + self.helpfulness) / 2

    def observe(self, promised: int, sent: int, proposed: bool | None) -> None:
        """One agreement and transfer: ``sent`` of ``promised`` chips; ``proposed`` is
        whether this player's agreed proposal was helpful (None: it did not propose)."""
        keep = 1.0 - self.discount
        self.sent, self.promised = self.sent * keep, self.promised * keep
        self.helpful, self.proposals = self.helpful * keep, self.proposals * keep
        self.sent += min(sent, promised)
        self.promised += promised
        if proposed is not None:
            self.helpful += 1.0 if proposed else 0.0
            self.proposals += 1.0
        if promised > 0:
            self.observations += 1


@dataclass(frozen=True)
class PurbConfig:
    """PURB's chosen numbers (see the module docstring for the reasons)."""

    discount: float = 0.1
    w_self: float = 1.0
    w_other_base: float = 0.1
    w_other_coop: float = 0.4
    w_other_dependent: float = 0.2
    w_coop_i: float = 20.0
    w_coop_j: float = 10.0
    low: float = 0.5
    high: float = 0.8
    epsilon: float = 2.0
    half_probability: float = 1.0
    subset_probability: float = 0.5
    keep_independence: bool = True
    endgame_walk: bool = True
    trust_independent_partner: bool = False
    both_free_after: int = 1
    certain_after: int = 2
    max_side: int = 3
    free_risk: float = 0.0


@dataclass
class Purb(Agent):
    """The PURB agent; ``traits[k]`` is player k's model."""

    config: PurbConfig = field(default_factory=PurbConfig)
    name: str = "purb"

    def start(self, me: int, rng: np.random.Generator) -> None:
        super().start(me, rng)
        self.traits = [Traits(self.config.discount), Traits(self.config.discount)]
        self.belief: ChipBelief | None = None
        self._last: tuple[int, int] | None = None

    def believed(self, view: View) -> View:
        """``view`` with the partner's chips: seen, or (hidden) PURB's estimate."""
        if view.other_chips is not None:
            return view
        if self.belief is None:
            self.belief = ChipBelief.even(sum(view.chips), len(view.chips))
            self._last = view.positions
        return replace(view, other_chips=self.belief.rounded())

    # --- utility -------------------------------------------------------------
    def utility(
        self,
        view: View,
        mine: tuple[int, ...],
        theirs: tuple[int, ...] | None,
        helpful: bool | None,
    ) -> float:
        c, me, other = self.config, view.me, view.other
        tj, ti = self.traits[other], self.traits[me]
        dependent = not view.independent(me, view.chips)
        w_other = c.w_other_base + c.w_other_coop * tj.cooperativeness
        w_other += c.w_other_dependent if dependent else 0.0
        es_i = view.best(me, mine)
        es_j = view.best(other, theirs) if theirs is not None else 0.0
        shown = ti.helpfulness if helpful is None else (ti.helpful + helpful) / (ti.proposals + 1)
        return (
            c.w_self * es_i + w_other * es_j + c.w_coop_j * tj.cooperativeness + c.w_coop_i * shown
        )

    def _after(self, view: View, p: Propose) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
        mine = tuple(a - g + t for a, g, t in zip(view.chips, p.give, p.take, strict=True))
        if view.other_chips is None:
            return mine, None
        theirs = tuple(b + g - t for b, g, t in zip(view.other_chips, p.give, p.take, strict=True))
        return mine, theirs

    def candidates(self, view: View) -> list[Propose]:
        """Proposals left by the narrowing rules (always including no trade)."""
        c, me = self.config, view.me
        other = (
            view.other_chips if view.other_chips is not None else (c.max_side,) * len(view.chips)
        )
        was_indep = view.independent(me, view.chips)
        # a partner who can already reach its goal gets chips only in exchange for chips
        # that raise PURB's own expected score (it would walk away with a gift)
        partner_free = view.other_chips is not None and view.independent(
            view.other, view.other_chips
        )
        base = view.best(me, view.chips)
        out, freeing = [], []
        gives = list(sub_vectors(view.chips, c.max_side))
        takes = list(sub_vectors(other, c.max_side))
        for give in gives:
            for take in takes:
                if any(g and t for g, t in zip(give, take, strict=True)):
                    continue
                p = Propose(give, take)
                mine, _ = self._after(view, p)
                indep = view.independent(me, mine)
                if was_indep and not indep:
                    continue
                if (
                    was_indep
                    and c.keep_independence
                    and not view.independent(me, _minus(view.chips, give))
                ):
                    continue  # it would stake its independence on the partner's transfer
                if partner_free and any(give) and view.best(me, mine) <= base:
                    continue
                out.append(p)
                if not was_indep and indep:
                    freeing.append(p)
        return freeing or out

    def best_proposal(self, view: View) -> tuple[Propose, float]:
        scored = []
        for p in self.candidates(view):
            mine, theirs = self._after(view, p)
            scored.append((self.utility(view, mine, theirs, sum(p.give) > sum(p.take)), p))
        top = max(u for u, _ in scored)
        near = [p for u, p in scored if u >= top - self.config.epsilon]
        return near[int(self.rng.integers(0, len(near)))], top

    # --- actions -------------------------------------------------------------
    def propose(self, view: View) -> Propose | None:
        view = self.believed(view)
        p, _ = self.best_proposal(view)
        return p if any(p.give) or any(p.take) else None

    def respond(self, view: View, proposal: Propose) -> bool:
        if view.other_chips is None:
            self.believed(view)
            assert self.belief is not None
            self.belief.at_least(proposal.give)  # it offers them: it holds them
            if any(proposal.take):  # it asks for them: probably what it lacks
                self.belief.requested(view.positions[view.other], proposal.take)
        view = self.believed(view)
        me, other, c = view.me, view.other, self.config
        # the proposer's give comes to me, its take leaves me
        flipped = Propose(proposal.take, proposal.give)
        if any(t > h for t, h in zip(flipped.give, view.chips, strict=True)):
            return False
        mine, theirs = self._after(view, flipped)
        if self._keeps_alive(view, mine):
            return True
        tj = self.traits[other]
        certain = tj.reliability >= c.high and tj.observations >= c.certain_after
        if (
            c.keep_independence
            and not certain
            and view.independent(me, view.chips)
            and not view.independent(me, _minus(view.chips, flipped.give))
        ):
            return False
        if (
            theirs is not None
            and not view.independent(other, view.other_chips or ())
            and view.independent(other, theirs)
            and not view.independent(me, mine)
            and not certain
        ):
            return False
        u_offer = self.utility(view, mine, theirs, None)
        _, u_own = self.best_proposal(view)
        return u_offer >= u_own

    def _keeps_alive(self, view: View, mine: tuple[int, ...]) -> bool:
        me, board = view.me, view.board
        here = view.positions[me]

        def can_move(chips: tuple[int, ...]) -> bool:
            return any(chips[board.colors[n]] > 0 for n in board.neighbours(here))

        last = view.dormant[me] + 1 >= view.rules.dormant_limit
        return last and not can_move(view.chips) and can_move(mine)

    def transfer(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...]:
        c, other = self.config, view.other
        if not any(promised):
            return promised
        view = self.believed(view)
        tj = self.traits[other]
        if tj.reliability < c.low:
            return (0,) * len(promised)
        if tj.reliability >= c.high and tj.observations >= c.certain_after:
            return promised
        allowed = self._keep_own_independence(view, promised)
        if self.belief is not None:  # hidden chips: judged on the hands it may hold
            risky = self._hidden_transfer(view, allowed, expected)
            if risky is not None:
                return risky
        case = self.transfer_case(view, promised, expected)
        theirs = view.other_chips
        assert theirs is not None  # seen or believed
        if case == "frees_partner":
            return _largest(allowed, lambda s: not view.independent(other, _plus(theirs, s)))
        if case == "both_independent":
            return allowed
        if case == "both_stay_dependent":
            # randomise between all and a subset (half)
            return _half(allowed) if self.rng.random() < c.subset_probability else allowed
        # otherwise (the partner already independent, or only PURB freed): half with a
        # given probability, else all
        return _half(allowed) if self.rng.random() < c.half_probability else allowed

    def _hidden_transfer(
        self, view: View, allowed: tuple[int, ...], expected: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        """Under hidden chips, to a partner it is not certain of: when ``allowed`` would
        free the partner in more than ``free_risk`` of the hands it may hold (and the
        exchange does not free PURB too with a partner it has seen), the largest part of
        it whose risk is at most ``free_risk``; None when the risk is low (the usual
        dependency cases then apply, on the estimated chips). When no drawn hand agrees
        with the evidence, the hands drawn without "could not walk home", else the
        estimate alone."""
        assert self.belief is not None
        me, other, c = view.me, view.other, self.config
        board, here, goal = view.board, view.positions, view.goals

        def reaches(pos: int, h: tuple[int, ...]) -> bool:
            return board.can_reach(pos, goal[other], h)

        # no drawn hand agrees with all the evidence (a lopsided deal): drop "could not
        # walk home", then fall back on the estimate itself
        hands = self.belief.hands(reaches) or self.belief.hands() or [self.belief.rounded()]

        def free(h: tuple[int, ...]) -> bool:
            return view.independent(other, h)

        if self.belief.free_risk(hands, allowed, free, reaches) <= c.free_risk:
            return None
        mine_after = tuple(a - p + e for a, p, e in zip(view.chips, allowed, expected, strict=True))
        seen = self.traits[other].observations >= c.both_free_after
        if seen and board.can_reach(here[me], goal[me], mine_after):
            return allowed  # frees both, with a partner seen before: the paper's "all"
        return _largest(
            allowed,
            lambda s: (
                self.belief is not None
                and self.belief.free_risk(hands, s, free, reaches) <= c.free_risk
            ),
        )

    def transfer_case(
        self, view: View, promised: tuple[int, ...], expected: tuple[int, ...]
    ) -> str:
        """The paper's dependency case of a medium-reliability transfer.

        "The partner becomes independent" is judged on what it holds if PURB sends and the
        partner keeps its own chips (it may send nothing); PURB's own independence after the
        whole exchange (the partner sends what it promised). When the exchange would free
        both, PURB sends all ("both_independent") only to a partner it has seen at least
        ``both_free_after`` times; an unseen partner is kept dependent ("frees_partner").
        """
        me, other = view.me, view.other
        theirs = view.other_chips
        assert theirs is not None
        mine_after = tuple(
            a - p + e for a, p, e in zip(view.chips, promised, expected, strict=True)
        )
        j_dep = not view.independent(other, theirs)
        j_free = view.independent(other, _plus(theirs, promised))
        i_free = view.independent(me, mine_after)
        if j_dep and j_free:
            seen = self.traits[other].observations >= self.config.both_free_after
            return "both_independent" if i_free and seen else "frees_partner"
        if j_free and i_free and self.config.trust_independent_partner:
            return "both_independent"
        if not j_free and not i_free:
            return "both_stay_dependent"
        return "otherwise"

    def _keep_own_independence(self, view: View, promised: tuple[int, ...]) -> tuple[int, ...]:
        """The largest part of ``promised`` PURB can send and still reach its goal alone
        (when it can now): it never stakes its own independence on the partner's transfer."""
        me = view.me
        if not self.config.keep_independence or not view.independent(me, view.chips):
            return promised
        return _largest(promised, lambda s: view.independent(me, _minus(view.chips, s)))

    def move(self, view: View) -> list[int]:
        """Walk to the goal when its chips allow; when the game may end this turn (a player
        is one turn from the dormancy limit, or the partner can walk to its goal) and the
        goal is out of reach, walk to the square with the best final score (the end point
        of the expected-future-score heuristic); otherwise keep the chips for trading,
        stepping only to stay in the game."""
        plan = walk_plan(view)
        if not self.config.endgame_walk or view.independent(view.me, view.chips):
            return plan
        partner_can_end = view.other_chips is not None and view.independent(
            view.other, view.other_chips
        )
        if max(view.dormant) + 1 < view.rules.dormant_limit and not partner_can_end:
            return plan
        best = _best_end(view)
        return best if best is not None else plan

    def observe(self, view: View, record: TurnRecord) -> None:
        if view is not None and view.other_chips is None:
            self._track_hidden(view, record)
        if not record.accepted or record.proposal is None:
            return
        for k in (0, 1):
            promised = sum(record.promised[k])
            done = kept(record.promised[k], record.sent[k]) if record.sent[k] else 0
            helpful = None
            if k == record.proposer:
                helpful = sum(record.proposal.give) > sum(record.proposal.take)
            self.traits[k].observe(promised, done, helpful)

    def _track_hidden(self, view: View, record: TurnRecord) -> None:
        """Update the estimate of the partner's hidden chips after a turn."""
        me, other = view.me, view.other
        if self.belief is None:
            self.believed(view)
        assert self.belief is not None
        if record.proposer == other and record.proposal is not None:
            self.belief.at_least(record.proposal.give)
            if any(record.proposal.take):
                was = self._last[other] if self._last is not None else view.positions[other]
                self.belief.requested(was, record.proposal.take)
        if record.proposer == me and record.proposal is not None and not record.accepted:
            self.belief.fewer_than(record.proposal.take)  # perhaps it lacked them
        if record.sent[me]:
            self.belief.add(record.sent[me])
        if record.sent[other]:
            self.belief.add(record.sent[other], -1)
        before = self._last[other] if self._last is not None else view.positions[other]
        after = view.positions[other]
        if after != before:
            steps = view.board.distance(before, after)
            path = view.board.shortest_path(before, after, (steps,) * len(view.chips))
            for cell in path or []:
                colour = view.board.colors[cell]
                self.belief.add(tuple(int(c == colour) for c in range(len(view.chips))), -1)
        if after != view.goals[other]:
            self.belief.cannot_reach(after)  # it did not walk home: it could not
        self._last = view.positions


def _best_end(view: View) -> list[int] | None:
    """A path to the square where ``view.me`` would score most if the game ended there."""
    me, board, rules = view.me, view.board, view.rules
    here, goal, total = view.positions[me], view.goals[me], sum(view.chips)
    reach = board.reach(here, view.chips)
    cell = max(reach, key=lambda c: (rules.score(board, c, goal, [total - reach[c]]), -reach[c]))
    if cell == here:
        return None
    return board.shortest_path(here, cell, view.chips)


def _plus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x + y for x, y in zip(a, b, strict=True))


def _minus(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(x - y for x, y in zip(a, b, strict=True))


def _largest(chips: tuple[int, ...], ok: Callable[[tuple[int, ...]], bool]) -> tuple[int, ...]:
    """The sub-vector of ``chips`` with the most chips for which ``ok`` holds (first found)."""
    best: tuple[int, ...] = (0,) * len(chips)
    for sub in sub_vectors(chips, sum(chips)):
        if sum(sub) > sum(best) and ok(sub):
            best = sub
    return best


def _half(promised: tuple[int, ...]) -> tuple[int, ...]:
    """About half of the promised chips (rounded down per colour, at least one chip)."""
    half = [p // 2 for p in promised]
    if not any(half):
        first = next(k for k, p in enumerate(promised) if p)
        half[first] = 1 if sum(promised) > 1 else 0
    return tuple(half)
