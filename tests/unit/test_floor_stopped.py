"""Stopping the floor service's hearing (floor.service.stopped): a cancellation that Python 3.11's
``asyncio.wait_for`` drops, as it does when the awaited acknowledgement comes with it (aiomqtt
awaits each one so), is asked again, so ``croupier floor`` stops on SIGTERM rather than hearing on
and waiting for ever."""

from __future__ import annotations

import asyncio

import pytest

from floor import service
from floor.service import stopped


def test_a_cancellation_wait_for_dropped_is_asked_again(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(service, "STOP_AGAIN", 0.1)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        acknowledged: asyncio.Future[None] = loop.create_future()

        async def hear() -> None:
            await asyncio.wait_for(acknowledged, 10)  # Python 3.11 drops a cancel the result comes with
            await asyncio.sleep(3600)  # hearing on

        hearing = asyncio.create_task(hear())
        await asyncio.sleep(0)  # in wait_for

        def acknowledge_and_stop() -> None:
            acknowledged.set_result(None)
            hearing.cancel()

        loop.call_soon(acknowledge_and_stop)
        stopping = asyncio.create_task(stopped(hearing))
        done, _ = await asyncio.wait({stopping}, timeout=2)  # a single cancel would wait the hour
        assert stopping in done and hearing.cancelled()

    asyncio.run(main())
