"""
From the person a token names to the GemStone user they work as.
"""

import attr

from gsmcpd.auth.documents import DocumentError, readJsonFile


class UserMapError(ValueError):
    """
    The mapping file cannot be used; the message says why.
    """


@attr.s(frozen=True, auto_attribs=True)
class UserMap:
    """
    An explicit mapping (C{--auth-user-map}): the user claim's value to a
    GemStone user name.  A value not in the map is taken as the GemStone
    user's own name, so a site whose identity provider already emits
    GemStone user names needs no file.

    @ivar users: claim value to GemStone user name.
    """

    users: dict

    @classmethod
    def read(cls, path: str) -> "UserMap":
        """
        A JSON object, e.g. C{{"alice@example.com": "Alice"}}.

        @raise UserMapError: the file is unreadable or not such an object.
        """
        try:
            document = readJsonFile(path)
        except DocumentError as e:
            raise UserMapError(str(e))
        if not isinstance(document, dict) or not all(
                isinstance(user, str) and user
                for user in document.values()):
            raise UserMapError(f"{path!r} must be a JSON object mapping each "
                               "claim value to a GemStone user name")
        return cls(document)

    def userFor(self, named: str) -> str:
        return self.users.get(named, named)
