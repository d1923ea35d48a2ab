"""Async handlers: every coroutine runs on the kit's one persistent event loop."""

import asyncio

from pushdouble.driver import Adapter, run, sent


class AsyncAdapter(Adapter):
    name, version, providers = "async-adapter", "1", ["apns"]

    async def initialize(self, config):
        self.loop_at_init = id(asyncio.get_running_loop())
        self.queue = asyncio.Queue()  # bound to that loop: reusing it later needs the same loop
        self.background = asyncio.ensure_future(self._worker())

    async def _worker(self):
        while True:
            tag, fut = await self.queue.get()
            fut.set_result("worked:" + tag)

    async def send(self, notification, devices, targets):
        loop = asyncio.get_running_loop()
        out = []
        for d in devices:
            fut = loop.create_future()
            await self.queue.put((d["id"], fut))
            reason = await asyncio.wait_for(fut, 5)
            same = "same-loop" if id(loop) == self.loop_at_init else "OTHER-loop"
            out.append(sent(d, reason="%s %s" % (reason, same)))
        return out

    def settle(self):  # a plain function returning an awaitable works too
        async def later():
            await asyncio.sleep(0)
            return []
        return later()

    async def shutdown(self):
        self.background.cancel()


if __name__ == "__main__":
    run(AsyncAdapter())
