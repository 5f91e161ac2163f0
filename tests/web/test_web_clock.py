"""The virtual clock drives asyncio code in no time, in deadline order, from the loop
or from another thread."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from accord.web import RealClock, VirtualClock


def test_sleepers_wake_in_deadline_order_at_their_deadline() -> None:
    clock = VirtualClock(start=100.0)

    async def run() -> list[tuple[str, float]]:
        seen: list[tuple[str, float]] = []

        async def sleeper(name: str, delay: float) -> None:
            await clock.sleep(delay)
            seen.append((name, clock.now()))
            if name == "b":  # a chain: sleeps again from inside a wake-up
                await clock.sleep(1.0)
                seen.append(("b2", clock.now()))

        tasks = [asyncio.create_task(sleeper(n, d)) for n, d in (("a", 3), ("b", 1), ("c", 3))]
        await clock.advance_async(2.5)
        assert seen == [("b", 101.0), ("b2", 102.0)] and clock.now() == 102.5
        await clock.advance_async(10)
        await asyncio.gather(*tasks)
        return seen

    assert asyncio.run(run())[2:] == [("a", 103.0), ("c", 103.0)]
    assert clock.now() == 112.5 and clock.wall() == 1_700_000_112.5


def test_wait_for_times_out_on_the_clock() -> None:
    clock = VirtualClock()

    async def run() -> tuple[str, str]:
        async def answer(delay: float) -> str:
            await clock.sleep(delay)
            return f"after {delay}"

        quick = asyncio.create_task(clock.wait_for(answer(1), 2))
        slow = asyncio.create_task(clock.wait_for(answer(5), 2))
        await clock.advance_async(10)
        with pytest.raises(TimeoutError, match="no result within 2 s"):
            await slow
        return await quick, str(clock.pending)

    assert asyncio.run(run()) == ("after 1", "[]")


def test_advance_from_another_thread_drives_a_loop_in_a_thread() -> None:
    clock = VirtualClock()
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    seen: list[float] = []

    async def ticker() -> None:
        for _ in range(3):
            await clock.sleep(10)
            seen.append(clock.now())

    future = asyncio.run_coroutine_threadsafe(ticker(), loop)
    deadline = time.monotonic() + 5
    while not clock.pending and time.monotonic() < deadline:
        time.sleep(0.001)
    clock.advance(25)
    assert seen == [10.0, 20.0]
    clock.advance(5)
    future.result(timeout=5)
    assert seen == [10.0, 20.0, 30.0]
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5)
    loop.close()


def test_the_real_clock_is_the_machine_clock() -> None:
    clock = RealClock()
    assert abs(clock() - time.monotonic()) < 1 and abs(clock.wall() - time.time()) < 1
    with pytest.raises(TimeoutError):
        asyncio.run(clock.wait_for(asyncio.sleep(1), 0.01))
