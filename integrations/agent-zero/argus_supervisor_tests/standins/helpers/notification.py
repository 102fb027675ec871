"""Stand-in for the host's helpers/notification.py (agent-zero 2d95cd9): the enums and
NotificationManager.send_notification with the host's parameters; SENT records each call."""
from enum import Enum


class NotificationType(Enum):
    INFO = "info"
    SUCCESS = "success"
    WARNING = "warning"
    ERROR = "error"
    PROGRESS = "progress"


class NotificationPriority(Enum):
    NORMAL = 10
    HIGH = 20


SENT: list[dict] = []


class NotificationManager:
    @staticmethod
    def send_notification(type: NotificationType, priority: NotificationPriority, message: str, title: str = "", detail: str = "", display_time: int = 3, group: str = "", id: str = ""):
        item = {"type": NotificationType(type), "priority": NotificationPriority(priority), "message": message, "title": title, "detail": detail, "display_time": display_time, "group": group, "id": id}
        SENT.append(item)
        return item
