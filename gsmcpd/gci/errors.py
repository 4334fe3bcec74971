"""
The one exception type a GemStone call raises.
"""

import attr

# Error numbers we act on (gci-facts.md section 7).
SOFT_BREAK = 6003
HARD_BREAK = 6004


@attr.s(auto_exc=True, auto_attribs=True, str=False)
class GciError(Exception):
    """
    An error a GciTs function reported in its C{GciErrSType}.

    @ivar number: the GemStone error number.
    @ivar message: GemStone's message text.
    @ivar fatal: true when the session (the gem) is gone and must be dropped.
    @ivar reason: GemStone's reason text; may name hosts and NRS, so it goes
        to the log and never to a client.
    @ivar context: the OOP of the suspended GsProcess a failed execution left,
        to be cleared; 0 when there is none.
    """

    number: int
    message: str
    fatal: bool = False
    reason: str = ""
    context: int = 0

    def __str__(self):
        return f"GemStone error {self.number}: {self.message}"

    @property
    def isBreak(self):
        """
        Whether this error is a break we sent, not a failure of the call.
        """
        return self.number in (SOFT_BREAK, HARD_BREAK)
