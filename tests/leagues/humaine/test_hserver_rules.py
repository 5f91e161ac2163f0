"""The pure R0-R4 engine on a virtual clock (the HTTP timing tests are elsewhere)."""

from __future__ import annotations

import threading

import pytest

from accord.leagues.humaine.rules import Bid, RuleConfig, RulesEngine, Utterance, count_words


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def eng(clock: Clock) -> RulesEngine:
    return RulesEngine(("A1", "A2"), budget=20.0, clock=clock)


def H(text: str = "I would like to buy 2 eggs.", to: str = "") -> Utterance:
    return Utterance("Human", text, addressee=to)


def A(name: str, text: str = "2 eggs for 5 dollars", bid: Bid | None = None) -> Utterance:
    return Utterance(name, text, addressee="Human", bid=bid)


def test_r0_human_gap_is_five_seconds(eng: RulesEngine, clock: Clock) -> None:
    assert eng.decide(H()).permitted
    clock.t += 4.999
    d = eng.decide(H())
    assert (d.permitted, d.rule) == (False, "R0")
    assert "4.999 s" in d.rationale
    clock.t += 0.001  # exactly 5 s after the permitted utterance
    assert eng.decide(H()).permitted


def test_r0_measures_from_last_permitted_utterance(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H())
    clock.t += 3
    assert not eng.decide(H()).permitted  # blocked one does not restart the gap
    clock.t += 2
    assert eng.decide(H()).permitted


def test_r1_accept_beyond_budget_blocked_and_budget_untouched(
    eng: RulesEngine, clock: Clock
) -> None:
    eng.decide(H(to="A1"))
    clock.t += 0.5
    d = eng.decide(A("A1", bid=Bid("Accept", {"egg": 2}, 20.01)))
    assert (d.permitted, d.rule) == (False, "R1")
    assert eng.budget == 20.0
    clock.t += 0.1
    d = eng.decide(A("A1", bid=Bid("Accept", {"egg": 2}, 20.0)))
    assert d.permitted and d.deal and d.amount_cents == 2000
    assert eng.budget == 0.0


def test_r1_offers_do_not_spend(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="A1"))
    clock.t += 0.5
    assert eng.decide(A("A1", bid=Bid("SellOffer", {"egg": 2}, 99.0))).permitted
    assert eng.budget == 20.0


def test_r1_accept_without_price_blocked(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="A1"))
    d = eng.decide(A("A1", bid=Bid("Accept", {"egg": 2}, None)))
    assert (d.permitted, d.rule) == (False, "R1")


def test_r1_concurrent_accepts_cannot_both_pass() -> None:
    """Many threads accept 15 of a 20 budget at once (each after its own human turn
    cannot happen here, so R3/R2 are off by construction: one agent per thread and
    simultaneity 0); exactly one acceptance may pass."""
    names = tuple(f"S{i}" for i in range(8))
    eng = RulesEngine(names, 20.0, RuleConfig(simultaneity=0.0), clock=lambda: 1.0)
    eng.decide(Utterance("Human", "anyone?"))
    barrier = threading.Barrier(len(names))
    results: list[bool] = []

    def go(name: str) -> None:
        barrier.wait()
        results.append(eng.decide(A(name, bid=Bid("Accept", {"egg": 1}, 15.0))).permitted)

    threads = [threading.Thread(target=go, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]
    assert eng.budget == 5.0


def test_r2_addressee_first_within_two_seconds(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="A1"))
    clock.t += 1.0
    d = eng.decide(A("A2"))
    assert (d.permitted, d.rule) == (False, "R2")
    assert "Premature response from unaddressed agent" in d.rationale
    clock.t += 0.5
    assert eng.decide(A("A1")).permitted  # 1.5 s: addressee answers
    clock.t += 0.2
    assert eng.decide(A("A2")).permitted  # freed by the addressee's broadcast


def test_r2_addressee_barred_after_two_seconds(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="A1"))
    clock.t += 1.999
    assert not eng.decide(A("A2")).permitted
    clock.t += 0.001
    d = eng.decide(A("A1"))
    assert (d.permitted, d.rule) == (False, "R2")
    assert eng.decide(A("A2")).permitted  # the unaddressed agent is free at 2 s
    clock.t += 5
    assert not eng.decide(A("A1")).permitted  # barred until the next human utterance
    eng.decide(H(to="A1"))
    clock.t += 0.1
    assert eng.decide(A("A1")).permitted


def test_r2_addressee_matches_case_insensitively(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="a2"))
    assert eng.addressee == "A2"
    clock.t += 0.1
    assert not eng.decide(A("A1")).permitted


def test_r3_once_per_human_utterance(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H())
    clock.t += 0.3
    assert eng.decide(A("A1")).permitted
    clock.t += 0.3
    assert eng.decide(A("A2")).permitted
    clock.t += 0.3
    d = eng.decide(A("A1"))
    assert (d.permitted, d.rule) == (False, "R3")
    assert "speaking twice" in d.rationale
    clock.t += 5
    eng.decide(H())
    clock.t += 0.3
    assert eng.decide(A("A2")).permitted  # [H, A1, A2, H, A2, A1] is valid
    clock.t += 0.3
    assert eng.decide(A("A1")).permitted


def test_r3_simultaneous_replies_first_wins(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H())
    clock.t += 0.5
    assert eng.decide(A("A2")).permitted
    clock.t += 0.004
    d = eng.decide(A("A1"))
    assert (d.permitted, d.rule) == (False, "R3")
    assert "Simultaneous" in d.rationale
    clock.t += 0.3
    assert eng.decide(A("A1", "2 eggs for 4 dollars")).permitted  # example 5


def test_r4_hundred_words(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H())
    clock.t += 0.2
    d = eng.decide(A("A1", " ".join(["w"] * 101)))
    assert (d.permitted, d.rule) == (False, "R4")
    assert "101 words" in d.rationale
    assert eng.decide(A("A1", " ".join(["w"] * 100))).permitted


def test_r4_not_applied_to_human(eng: RulesEngine) -> None:
    assert eng.decide(H(" ".join(["w"] * 300))).permitted


def test_agent_before_any_human_utterance_blocked(eng: RulesEngine) -> None:
    d = eng.decide(A("A1"))
    assert (d.permitted, d.rule) == (False, "order")


def test_unknown_speaker_blocked(eng: RulesEngine) -> None:
    d = eng.decide(A("Mallory"))
    assert (d.permitted, d.rule) == (False, "speaker")
    assert "Mallory" in d.rationale


def test_inactive_round_blocks_everything(eng: RulesEngine) -> None:
    eng.active = False
    d = eng.decide(H())
    assert (d.permitted, d.rule) == (False, "phase")


def test_check_does_not_change_state(eng: RulesEngine, clock: Clock) -> None:
    assert eng.check(H()).permitted
    assert eng.last_human_at is None


def test_refund_restores_budget(eng: RulesEngine, clock: Clock) -> None:
    eng.decide(H(to="A1"))
    d = eng.decide(A("A1", bid=Bid("Accept", {"egg": 1}, 7.25)))
    assert eng.budget_cents == 1275
    eng.refund(d.amount_cents)
    assert eng.budget == 20.0


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="human_gap must be >= 0"):
        RuleConfig(human_gap=-1)
    with pytest.raises(ValueError, match="distinct"):
        RulesEngine(("A", "A"), 10)


def test_count_words() -> None:
    assert count_words("  a  b\tc\nd ") == 4
    assert count_words("") == 0
