"""A Python `mcp` server whose tools ask mid-call, as most server code in the wild does: over
stdio (`python_server.py stdio`) or stateful streamable HTTP (`python_server.py http <port>`).
Used by the interop tests of toolnexus (test/interop/)."""

import sys

import anyio

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("py-asker")


class Name(BaseModel):
    name: str


class Weather(BaseModel):
    city: str
    celsius: float


@app.tool()
def echo(message: str) -> str:
    """Echoes the message."""
    return f"py: {message}"


@app.tool()
def weather(city: str) -> Weather:
    """Structured output."""
    return Weather(city=city, celsius=21.5)


@app.tool()
async def greet(ctx: Context) -> str:
    """Asks the caller for a name mid-call (elicitation/create)."""
    answer = await ctx.elicit("What is your name?", Name)
    if answer.action != "accept":
        return f"no name ({answer.action})"
    return f"Hello, {answer.data.name}!"


@app.tool()
async def count(n: int, ctx: Context) -> str:
    """Reports progress n times."""
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"step {i + 1}")
    return f"counted {n}"


@app.tool()
async def sleep(seconds: float) -> str:
    """Sleeps, so a caller can cancel it."""
    await anyio.sleep(seconds)
    return "slept"


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        app.run("stdio")
    else:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
