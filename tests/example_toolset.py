"""
A toolset of one's own: the worked example in docs/toolsets.rst.

It serves one tool, C{greet}, whose Smalltalk is the template
C{tests/example_templates/greet.st}, and one option, C{greeting}.  A deployment serves it by naming it::

    twistd gsmcp --toolsets "execution tests.example_toolset:GreetingToolset" \\
        --toolset-options '{"tests.example_toolset:GreetingToolset":
                            {"greeting": "Hello"}}'
"""

from twisted.internet.defer import inlineCallbacks

from gsmcpd.tools.base import (
    Tool,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
    resultSchema,
)


class GreetingToolset(Toolset):
    name = "tests.example_toolset:GreetingToolset"
    title = "Greetings"
    instructions = "greet says hello to a GemStone user."
    declaredOptionNames = ("greeting",)

    def tools(self):
        return [Tool(
            name="greet",
            title="Greet",
            description="Greet someone, by the stone's reckoning.",
            inputSchema=closedSchema(
                {"name": {"type": "string", "minLength": 1}},
                required=["name"]),
            outputSchema=resultSchema(greeting={"type": "string"}),
            annotations=annotations(readOnly=True),
            run=self.greet)]

    @inlineCallbacks
    def greet(self, call, arguments):
        text = yield call.runTemplate(
            "greet",
            {"greeting": self.optionNamed("greeting", "Hello"),
             "name": arguments["name"]},
            package="tests.example_templates")
        return ToolResult(text, {"greeting": text})
