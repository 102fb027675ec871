"""Stand-in for the host's helpers/tool.py (agent-zero 2d95cd9): Tool and Response."""
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any


@dataclass
class Response:
    message: str
    break_loop: bool
    additional: dict[str, Any] | None = None


class Tool:
    def __init__(self, agent, name: str, method: str | None, args: dict, message: str, loop_data, **kwargs) -> None:
        self.agent = agent
        self.name = name
        self.method = method
        self.args = args
        self.loop_data = loop_data
        self.message = message
        self.progress = ""

    @abstractmethod
    async def execute(self, **kwargs) -> Response:
        pass
