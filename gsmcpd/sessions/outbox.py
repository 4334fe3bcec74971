"""
One session's server-to-client messages waiting for its stream: bounded,
dropping the oldest with a log line that admits the gap.
"""

import collections
from typing import Any

from twisted.logger import Logger

from gsmcpd.observe.clipping import clipped

OUTBOX_LIMIT = 256


class Outbox:
    """
    One session's server-to-client messages waiting for its stream.

    @ivar dropped: how many messages were dropped because it was full.
    """

    log = Logger()

    def __init__(self, owner: str, limit: int = OUTBOX_LIMIT) -> None:
        """
        @param owner: how its log line names whose it is: never a full
            session handle, which is a bearer capability.
        """
        self._owner = owner
        self._messages: collections.deque[Any] = collections.deque()
        self._limit = limit
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._messages)

    def put(self, message: Any) -> None:
        if len(self._messages) >= self._limit:
            self._messages.popleft()
            self.dropped += 1
            self.log.warn(
                "session {session}: outbox full ({limit} messages waiting for "
                "a stream that is not reading); dropped the oldest, so the "
                "client will see a gap ({dropped} dropped so far)",
                session=clipped(self._owner), limit=self._limit, dropped=self.dropped)
        self._messages.append(message)

    def take(self) -> Any:
        return self._messages.popleft()
