"""
The one exception type a GemStone call raises.
"""

import attr

# Error numbers we act on (gci-facts.md section 7).
SOFT_BREAK = 6003
HARD_BREAK = 6004

# Special OOPs (gcioop.ht, as published with the 3.7 headers).
OOP_ILLEGAL = 0x01
OOP_NIL = 0x14

_NO_PROCESS = (0, OOP_ILLEGAL, OOP_NIL)
"""What C{GciErrSType.context} holds when a failure left no GsProcess: the
3.7 C{gci.ht} initialises it to OOP_NIL; 0 is what a report nobody filled
in holds."""


@attr.s(auto_exc=True, auto_attribs=True, str=False)
class GciError(Exception):
    """
    An error a GciTs function reported in its C{GciErrSType}.

    @ivar number: the GemStone error number.
    @ivar message: GemStone's message text.
    @ivar fatal: true when the session (the gem) is gone and must be dropped.
    @ivar reason: GemStone's reason text; may name hosts and NRS, so it goes
        to the log and never to a client.
    @ivar context: C{GciErrSType.context}: the OOP of the GsProcess a failed
        execution left suspended, or OOP_NIL when it left none.
    """

    number: int
    message: str
    fatal: bool = False
    reason: str = ""
    context: int = OOP_NIL

    def __str__(self) -> str:
        return f"GemStone error {self.number}: {self.message}"

    @property
    def isBreak(self) -> bool:
        """
        Whether this error is a break we sent, not a failure of the call.
        """
        return self.number in (SOFT_BREAK, HARD_BREAK)

    @property
    def suspendedProcess(self) -> int | None:
        """
        The OOP of the GsProcess to clear with GciTsClearStack, or L{None}
        when the failure left none (a compile error, a login, most GCI-level
        refusals).
        """
        return None if self.context in _NO_PROCESS else self.context
