"""
The protocol's part of the compact catalog surface
(L{gsmcpd.tools.catalogtools}): a call of C{tool_call} is the direct call
it names, and the instructions say how to reach what is not listed.
"""

import attr

from gsmcpd.protocol.instructions import stockInstructions
from gsmcpd.tools.catalogtools import TOOL_CALL
from gsmcpd.tools.templates.outcomes import ToolError

CATALOG_PARAGRAPH = (
    "tools/list shows an everyday set. Find any other served tool (define "
    "and remove classes, methods, dictionaries; listings; searches; test "
    "failures) with tool_search; tool_get describes one; call it by name or "
    "through tool_call.")


def catalogInstructions(toolsets, modern=False):
    """
    The era's stock instructions, then how to find what is not listed.
    """
    return "\n\n".join([stockInstructions(toolsets, modern),
                        CATALOG_PARAGRAPH])


def unwrapCall(catalog, message):
    """
    C{message} as the direct C{tools/call} it names, when it is a valid
    call of C{tool_call}; otherwise C{message} itself, answered as any call
    is (an invalid call of C{tool_call} by its own schema, like any tool's).

    Made before either era looks at the call, so everything a direct call
    meets (validation, scopes, confirmations, session handles, deadlines,
    the audit) it meets by construction.
    """
    if message.method != "tools/call" or \
            message.params.get("name") != TOOL_CALL:
        return message
    tool = catalog.get(TOOL_CALL)
    arguments = message.params.get("arguments")
    if tool is None or not isinstance(arguments, dict):
        return message
    try:
        tool.validate(arguments)
    except ToolError:
        return message
    if arguments["name"] == TOOL_CALL:
        return message
    return attr.evolve(message, params=dict(
        message.params, name=arguments["name"],
        arguments=arguments.get("arguments", {})))
