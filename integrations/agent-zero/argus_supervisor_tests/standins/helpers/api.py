"""Stand-in for the host's helpers/api.py (agent-zero 2d95cd9): ApiHandler and its class methods."""
import json
from abc import abstractmethod
from typing import Any


class Request:  # flask.Request in the host
    def __init__(self, json_body: dict | None = None):
        self.json_body = json_body or {}
        self.is_json = True


class Response:  # flask.Response in the host: (response, status, mimetype)
    def __init__(self, response: str = "", status: int = 200, mimetype: str = "text/plain"):
        self.response = response
        self.status = status
        self.status_code = status
        self.mimetype = mimetype

    def get_json(self) -> Any:
        return json.loads(self.response)


class ApiHandler:
    def __init__(self, app, thread_lock):
        self.app = app
        self.thread_lock = thread_lock

    @classmethod
    def requires_loopback(cls) -> bool:
        return False

    @classmethod
    def requires_api_key(cls) -> bool:
        return False

    @classmethod
    def requires_auth(cls) -> bool:
        return True

    @classmethod
    def get_methods(cls) -> list[str]:
        return ["POST"]

    @classmethod
    def requires_csrf(cls) -> bool:
        return cls.requires_auth()

    @abstractmethod
    async def process(self, input: dict, request: Request) -> "dict | Response":
        pass

    async def handle_request(self, request: Request) -> Response:
        output = await self.process(request.json_body, request)
        if isinstance(output, Response):
            return output
        return Response(response=json.dumps(output), status=200, mimetype="application/json")
