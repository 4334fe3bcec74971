"""
The served tool surface: the tools of the toolsets a deployment names.
"""

from gsmcpd.tools.execution import ExecutionToolset
from gsmcpd.tools.session import SessionToolset

CORE_TOOLSETS = (ExecutionToolset, SessionToolset)
"""The toolsets served when a deployment names none."""


class ToolRegistry:
    """
    Tool name to L{Tool}, from a list of toolsets.
    """

    def __init__(self, toolsets):
        self.toolsets = tuple(toolsets)
        self._tools = {}
        for toolset in self.toolsets:
            for tool in toolset.tools():
                if tool.name in self._tools:
                    raise ValueError(
                        f"tool {tool.name!r} is served by two toolsets")
                self._tools[tool.name] = tool

    @classmethod
    def default(cls):
        return cls(toolset() for toolset in CORE_TOOLSETS)

    def get(self, name):
        return self._tools.get(name)

    def __iter__(self):
        return iter(sorted(self._tools.values(), key=lambda t: t.name))

    def __len__(self):
        return len(self._tools)
