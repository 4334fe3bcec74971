"""
Which toolsets a token opens: C{--auth-scope-toolsets} maps each scope to
toolset names, and a token gets the union over its scopes.
"""

import json
from collections.abc import Iterable

import attr


class ScopeMapError(ValueError):
    """
    The mapping is malformed or names a toolset not served.
    """


@attr.s(frozen=True, auto_attribs=True)
class ScopeToolsets:
    """
    @ivar toolsetsByScope: scope name to a frozenset of toolset names.
    """

    toolsetsByScope: dict

    @classmethod
    def parse(cls, text: str, served: Iterable[str]) -> "ScopeToolsets":
        """
        Read the option's JSON, e.g. C{{"gemstone:read": ["browsing"]}}.

        @param served: the names of the toolsets the daemon serves.
        @raise ScopeMapError: naming what is wrong.
        """
        try:
            document = json.loads(text)
        except ValueError as e:
            raise ScopeMapError(f"is not JSON: {e}")
        if not isinstance(document, dict) or not all(
                isinstance(names, list)
                and all(isinstance(name, str) for name in names)
                for names in document.values()):
            raise ScopeMapError('must map each scope to a list of toolset '
                                'names, e.g. {"gemstone:read": '
                                '["browsing", "listing"]}')
        unknown = {name for names in document.values() for name in names} \
            - set(served)
        if unknown:
            raise ScopeMapError(
                f"names toolsets not served: {', '.join(sorted(unknown))} "
                f"(served: {', '.join(sorted(served))})")
        return cls({scope: frozenset(names)
                    for scope, names in document.items()})

    @property
    def scopes(self) -> frozenset[str]:
        return frozenset(self.toolsetsByScope)

    def toolsetsFor(self, scopes: Iterable[str]) -> frozenset[str] | None:
        """
        The toolsets a token granting C{scopes} may use.
        """
        return frozenset().union(*(self.toolsetsByScope.get(scope, ())
                                   for scope in scopes))
