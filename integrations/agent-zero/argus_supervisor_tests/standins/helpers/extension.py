"""Stand-in for the host's helpers/extension.py (agent-zero 2d95cd9): the Extension base."""
from abc import abstractmethod


class Extension:
    def __init__(self, agent, **kwargs):
        self.agent = agent
        self.kwargs = kwargs

    @abstractmethod
    def execute(self, **kwargs):
        pass
