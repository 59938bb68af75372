"""The demo's scripted world: a travel agent, its two tools, and the models the fault server plays.

The agent answers "is the weather good for a weekend in Lisbon, and which flights can I take?"
by calling ``get_weather`` and ``get_flights`` (local, deterministic functions), then answering.
A writer model streams a short itinerary; two summariser models of different sizes read a long
booking log. Every text is fixed, so a step can check what it got against what was scripted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from surefoot.testing.faults import Model, ToolCall, Turn

__all__ = [
    "AGENT",
    "AGENT_PROMPT",
    "ANSWER",
    "LARGE",
    "LONG_PROMPT",
    "SMALL",
    "SMALL_WINDOW",
    "STORY",
    "SUMMARY",
    "WRITER",
    "WRITER_BACKUP",
    "WRITER_PRIMARY",
    "WRITER_PROMPT",
    "make_tools",
    "server_models",
]

AGENT = "surefoot-agent"
WRITER = "surefoot-writer"
#: The cut-stream step's chain: a primary whose stream carries no event ids, as real providers'
#: chat streams do, and its backup.
WRITER_PRIMARY = "writer-eu"
WRITER_BACKUP = "writer-us"
SMALL = "surefoot-mini"
LARGE = "surefoot-max"
#: The small model's context window on the fault server, in words.
SMALL_WINDOW = 400
LARGE_WINDOW = 200_000

AGENT_PROMPT = (
    "I'm in Paris. Is the weather good for a weekend in Lisbon on Saturday 14 June, "
    "and which morning flights can I take?"
)
ANSWER = (
    "Yes: Lisbon is forecast sunny with a high of 26 °C on Saturday 14 June. The best morning "
    "flight is TP433 from CDG at 07:05, landing at 08:50, for EUR 89; AF1024 at 09:40 costs "
    "EUR 132."
)
WRITER_PROMPT = "Write a two-day Lisbon itinerary for the weekend, in two sentences."
STORY = (
    "Day one: land at 08:50, drop the bags in Alfama, climb to the Miradouro de Santa Luzia "
    "and ride tram 28 to Estrela for dinner. Day two: pastries in Belém, the Tagus waterfront "
    "by bike, and sunset at the LX Factory before the 20:40 flight home."
)
SUMMARY = (
    "Six nights booked in Lisbon, all with breakfast; two late checkouts are still pending "
    "confirmation."
)


def _booking_log() -> str:
    lines = [
        f"Booking {i:02d}: hotel night {i % 6 + 1} in Lisbon, confirmation LX{4000 + i}, "
        f"breakfast included, late checkout {'requested' if i % 5 == 0 else 'not requested'}."
        for i in range(1, 49)
    ]
    return "\n".join(lines)


LONG_PROMPT = "Summarise this booking log in one sentence.\n\n" + _booking_log()

_WEATHER_ARGS = {"city": "Lisbon", "date": "2025-06-14"}
_FLIGHT_ARGS = {"origin": "CDG", "destination": "LIS", "date": "2025-06-14"}


def server_models() -> list[Model]:
    """The models the fault server plays for the demo."""
    return [
        Model(
            AGENT,
            turns=[
                Turn(
                    tool_calls=[
                        ToolCall("get_weather", _WEATHER_ARGS),
                        ToolCall("get_flights", _FLIGHT_ARGS),
                    ]
                ),
                Turn(text=ANSWER),
            ],
        ),
        Model(WRITER, reply=STORY),
        Model(WRITER_PRIMARY, reply=STORY, event_ids=False),
        Model(WRITER_BACKUP, reply=STORY, event_ids=False),
        Model(SMALL, reply=SUMMARY, context_window=SMALL_WINDOW),
        Model(LARGE, reply=SUMMARY, context_window=LARGE_WINDOW),
    ]


def make_tools(on_call: Callable[[str], None]) -> list[Callable[..., Awaitable[Any]]]:
    """The agent's two tools; each tells ``on_call`` how it was called before answering."""

    async def get_weather(city: str, date: str) -> dict[str, Any]:
        """The weather forecast for a city on a day.

        Args:
            city: the city, like "Lisbon".
            date: the day, as YYYY-MM-DD.
        """
        on_call(f"get_weather(city={city!r}, date={date!r})")
        return {"city": city, "date": date, "forecast": "sunny", "high_c": 26, "low_c": 17}

    async def get_flights(origin: str, destination: str, date: str) -> list[dict[str, Any]]:
        """Direct flights between two airports on a day.

        Args:
            origin: the IATA code of the departure airport, like "CDG".
            destination: the IATA code of the arrival airport, like "LIS".
            date: the day, as YYYY-MM-DD.
        """
        on_call(f"get_flights(origin={origin!r}, destination={destination!r}, date={date!r})")
        return [
            {"flight": "TP433", "departs": "07:05", "arrives": "08:50", "price_eur": 89},
            {"flight": "AF1024", "departs": "09:40", "arrives": "11:25", "price_eur": 132},
        ]

    return [get_weather, get_flights]
