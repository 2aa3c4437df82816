"""The Python `mcp` client against toolnexus: `/mcp` over HTTP (`python_client.py <url> <mode>`,
mode `legacy` or `2026-07-28`) or `toolnexus mcp` over stdio (`python_client.py stdio <mode> <node>
<cli> <config>`). Each upstream prefix in $UPSTREAMS (comma separated) is checked: list, call,
structured output, progress, cancellation, and an upstream question answered by this client.
Prints one PASS/FAIL line per check; the exit status is the number of failures."""

import os
import sys

import anyio

from mcp import Client, StdioServerParameters, types

failures = 0


def report(name: str, ok: bool, detail: str = "") -> None:
    global failures
    print(f"{'PASS' if ok else 'FAIL'} python[{LABEL}] {name}{'' if ok else ': ' + detail}", flush=True)
    failures += 0 if ok else 1


async def answer(_context, params):
    return types.ElicitResult(action="accept", content={"name": "Ada"})


def text(result) -> str:
    return "".join(part.text for part in result.content if getattr(part, "type", "") == "text")


async def check(client: Client, prefix: str) -> None:
    async def one(name, fn):
        try:
            await fn()
        except Exception as err:  # noqa: BLE001 -- every failure is a reported check
            report(f"{prefix} {name}", False, repr(err))

    async def listed():
        names = {t.name for t in (await client.list_tools()).tools}
        report(f"{prefix} list", f"{prefix}_echo" in names and f"{prefix}_greet" in names, str(sorted(names)))

    async def call():
        r = await client.call_tool(f"{prefix}_echo", {"message": "hi"})
        report(f"{prefix} call", not r.is_error and "hi" in text(r), text(r))

    async def structured():
        r = await client.call_tool(f"{prefix}_weather", {"city": "Oslo"})
        sc = r.structured_content or {}
        report(f"{prefix} structured output", sc.get("city") == "Oslo", repr(sc))

    async def progress():
        seen = []

        async def on_progress(p, total, message):
            seen.append(p)

        r = await client.call_tool(f"{prefix}_count", {"n": 3}, progress_callback=on_progress)
        report(f"{prefix} progress", not r.is_error and len(seen) >= 1, f"{seen} {text(r)}")

    async def cancel():
        with anyio.move_on_after(1.0) as scope:
            await client.call_tool(f"{prefix}_sleep", {"seconds": 30})
        # The session goes on after a cancelled call.
        r = await client.call_tool(f"{prefix}_echo", {"message": "after"})
        report(f"{prefix} cancellation", scope.cancelled_caught and "after" in text(r), text(r))

    async def question():
        r = await client.call_tool(f"{prefix}_greet", {})
        report(f"{prefix} upstream question answered", "Hello, Ada!" in text(r), text(r))

    for name, fn in [("list", listed), ("call", call), ("structured", structured), ("progress", progress), ("cancel", cancel), ("question", question)]:
        await one(name, fn)


async def main() -> None:
    if sys.argv[1] == "stdio":
        node, cli, config = sys.argv[3:6]
        server = StdioServerParameters(command=node, args=[cli, "mcp", "--config", config])
    else:
        server = sys.argv[1]
    async with Client(server, mode=sys.argv[2], elicitation_callback=answer, read_timeout_seconds=30) as client:
        for prefix in os.environ["UPSTREAMS"].split(","):
            await check(client, prefix)


LABEL = f"{'stdio' if sys.argv[1] == 'stdio' else 'http'} {sys.argv[2]}"
anyio.run(main)
sys.exit(failures)
