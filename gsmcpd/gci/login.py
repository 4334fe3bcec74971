"""
What a GemStone session logs in with.
"""

import attr

SOURCE_CLASS = "Utf8"
"""The class whose OOP tells GemStone the source bytes are UTF-8: resolved
in each session's symbol list at login, as public GemStone clients do."""


@attr.s(frozen=True, auto_attribs=True, repr=False)
class LoginParameters:
    """
    What GciTsLogin needs.  C{repr} leaves the passwords out.
    """

    stoneNrs: str
    gemNrs: str | None
    user: str
    password: str
    hostUser: str | None = None
    hostPassword: str | None = None
    flags: int = 0

    def __repr__(self) -> str:
        return (f"LoginParameters(stoneNrs={self.stoneNrs!r}, "
                f"gemNrs={self.gemNrs!r}, user={self.user!r})")
