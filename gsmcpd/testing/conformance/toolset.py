"""
The conformance fixtures: the tools, resources and prompts the official MCP
conformance suite calls by name.

Served only when named by its import path (L{TOOLSET}), never by default:
they exercise the daemon's general mechanisms (content blocks, log messages
and requests on a call's own stream, progress, resources, prompts,
completion, resumption), not GemStone.
"""

import json

from twisted.internet.defer import inlineCallbacks
from twisted.internet.task import deferLater

from gsmcpd.testing.conformance import TOOLSET, fixtures2026
from gsmcpd.tools import questions
from gsmcpd.tools.base import (
    NO_SESSION,
    Tool,
    ToolResult,
    Toolset,
    annotations,
    closedSchema,
)
from gsmcpd.tools.offerings import Prompt, Resource, ResourceTemplate

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
       "/pLvAAAAAElFTkSuQmCC")
"""One red pixel."""
WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
"""Eight samples of silence."""
STEP = 0.05
"""Seconds between a fixture's steps, as the suite asks."""

ELICITATION_SCHEMA = closedSchema({
    "username": {"type": "string", "description": "User's response"},
    "email": {"type": "string", "description": "User's email address"}},
    required=["username", "email"])
ELICITATION_SCHEMA.pop("additionalProperties")

DEFAULTS_SCHEMA = {"type": "object", "properties": {
    "name": {"type": "string", "default": "John Doe"},
    "age": {"type": "integer", "default": 30},
    "score": {"type": "number", "default": 95.5},
    "status": {"type": "string", "enum": ["active", "inactive", "pending"],
               "default": "active"},
    "verified": {"type": "boolean", "default": True}}}

ENUMS_SCHEMA = {"type": "object", "properties": {
    "untitledSingle": {"type": "string",
                       "enum": ["option1", "option2", "option3"]},
    "titledSingle": {"type": "string", "oneOf": [
        {"const": "value1", "title": "First Option"},
        {"const": "value2", "title": "Second Option"},
        {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                     "enumNames": ["Option One", "Option Two",
                                   "Option Three"]},
    "untitledMulti": {"type": "array", "items": {
        "type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "items": {"anyOf": [
        {"const": "value1", "title": "First Choice"},
        {"const": "value2", "title": "Second Choice"},
        {"const": "value3", "title": "Third Choice"}]}}}}

SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object",
                          "properties": {"street": {"type": "string"},
                                         "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"},
                   "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string",
                                     "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}},
           "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False}
"""Every 2020-12 keyword the suite checks is passed through untouched: $schema,
$defs with an $anchor, composition and conditional keywords."""

COMPLETIONS = ("paris", "park", "party", "pasta", "world", "hello")


def text(value):
    return {"type": "text", "text": value}


def image():
    return {"type": "image", "data": PNG, "mimeType": "image/png"}


def fixed(*content, isError=False):
    """
    A tool run answering C{content}.
    """
    return lambda call, arguments: ToolResult(
        content[0].get("text", ""), content=list(content), isError=isError)


class ConformanceToolset(Toolset):
    name = TOOLSET
    title = "Conformance fixtures"
    instructions = ("The test_* tools, test:// resources and test_* prompts "
                    "are the MCP conformance suite's fixtures, not GemStone "
                    "tools.")
    usesLogging = True

    def tools(self):
        tool = self._tool
        return [
            tool("test_simple_text", fixed(text(
                "This is a simple text response for testing."))),
            tool("test_image_content", fixed(image())),
            tool("test_audio_content", fixed(
                {"type": "audio", "data": WAV, "mimeType": "audio/wav"})),
            tool("test_embedded_resource", fixed({
                "type": "resource", "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content."}})),
            tool("test_multiple_content_types", fixed(
                text("Multiple content types test:"), image(),
                {"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": json.dumps({"test": "data", "value": 123})}})),
            tool("test_error_handling", fixed(text(
                "This tool intentionally returns an error for testing"),
                isError=True)),
            tool("test_tool_with_logging", self.logging, streams=True),
            tool("test_tool_with_progress", self.progress, streams=True),
            tool("test_sampling", self.sampling, streams=True,
                 schema=closedSchema({"prompt": {"type": "string"}},
                                     ["prompt"])),
            tool("test_elicitation", self.elicitation, streams=True,
                 schema=closedSchema({"message": {"type": "string"}},
                                     ["message"])),
            tool("test_elicitation_sep1034_defaults",
                 self.elicit(DEFAULTS_SCHEMA), streams=True),
            tool("test_elicitation_sep1330_enums", self.elicit(ENUMS_SCHEMA),
                 streams=True),
            tool("json_schema_2020_12_tool",
                 fixed(text("Received a 2020-12 schema call.")),
                 schema=SCHEMA_2020_12),
            tool("test_reconnection", self.reconnection, streams=True),
            tool("test_logging_tool", self.logging, streams=True),
        ] + [tool(name, run) for name, run in fixtures2026.TOOLS] + [
            tool(name, run, schema=schema, taskSupport=taskSupport)
            for name, run, schema, taskSupport in
            fixtures2026.TaskFixtures().tools()]

    def _tool(self, name, run, streams=False, schema=None, taskSupport=None):
        return Tool(name=name, title=name.replace("_", " "),
                    description=f"Conformance fixture {name}.",
                    inputSchema=schema or closedSchema(),
                    annotations=annotations(readOnly=True),
                    run=run, streams=streams, taskSupport=taskSupport,
                    runsOn=NO_SESSION)

    def _pause(self, call):
        # On the call's own clock: its deadline's, a test's Clock.
        return deferLater(call.clock, STEP, lambda: None)

    @inlineCallbacks
    def logging(self, call, arguments):
        for message in ("Tool execution started", "Tool processing data",
                        "Tool execution completed"):
            call.log("info", message, "conformance")
            yield self._pause(call)
        return ToolResult("Logging test completed.")

    @inlineCallbacks
    def progress(self, call, arguments):
        for done in (0, 50, 100):
            call.reportProgress(done, 100)
            if done < 100:
                yield self._pause(call)
        return ToolResult("Progress test completed.")

    @inlineCallbacks
    def sampling(self, call, arguments):
        answer = yield self._ask(call, questions.sampling(
            arguments["prompt"], 100))
        reply = (answer or {}).get("content", {})
        return ToolResult(f"LLM response: {reply.get('text', reply)}")

    def elicitation(self, call, arguments):
        return self._elicited(call, arguments["message"], ELICITATION_SCHEMA)

    def elicit(self, schema):
        return lambda call, arguments: self._elicited(
            call, "Please review the defaults", schema)

    @inlineCallbacks
    def _elicited(self, call, message, schema):
        # Not questions.elicitation, which adds a mode and builds its own
        # schema: the suite's schema goes as it is.
        answer = yield self._ask(call, {"method": "elicitation/create",
                                        "params": {"message": message,
                                                   "requestedSchema": schema}})
        answer = answer or {}
        return ToolResult(f"Elicitation completed: action="
                          f"{answer.get('action')}, content="
                          f"{json.dumps(answer.get('content', {}))}")

    @inlineCallbacks
    def _ask(self, call, question):
        answers = yield call.ask({"question": question})
        return answers["question"]

    @inlineCallbacks
    def reconnection(self, call, arguments):
        call.closeStream()
        yield deferLater(call.clock, 4 * STEP, lambda: None)
        return ToolResult("Reconnection test completed.")

    def resources(self):
        return [
            Resource("test://static-text", "static-text",
                     lambda call, uri: [{"uri": uri, "mimeType": "text/plain",
                                         "text": "This is the content of the "
                                                 "static text resource."}],
                     description="A static text resource",
                     mimeType="text/plain", runsOn=NO_SESSION),
            Resource("test://static-binary", "static-binary",
                     lambda call, uri: [{"uri": uri, "mimeType": "image/png",
                                         "blob": PNG}],
                     description="A static binary resource",
                     mimeType="image/png", runsOn=NO_SESSION),
            Resource("test://watched-resource", "watched-resource",
                     lambda call, uri: [{"uri": uri, "mimeType": "text/plain",
                                         "text": "Watched resource content."}],
                     description="A resource clients may subscribe to",
                     mimeType="text/plain", runsOn=NO_SESSION),
        ]

    def resourceTemplates(self):
        return [ResourceTemplate(
            "test://template/{id}/data", "template-data",
            lambda call, uri, id: [{"uri": uri,
                                    "mimeType": "application/json",
                                    "text": json.dumps({
                                        "id": id, "templateTest": True,
                                        "data": f"Data for ID: {id}"})}],
            description="A resource template", mimeType="application/json",
            runsOn=NO_SESSION)]

    def prompts(self):
        return [
            Prompt("test_simple_prompt", lambda arguments: [
                {"role": "user", "content": text(
                    "This is a simple prompt for testing.")}],
                description="A simple prompt"),
            Prompt("test_prompt_with_arguments", lambda arguments: [
                {"role": "user", "content": text(
                    f"Prompt with arguments: arg1='{arguments['arg1']}', "
                    f"arg2='{arguments['arg2']}'")}],
                arguments=(
                    {"name": "arg1", "description": "First test argument",
                     "required": True},
                    {"name": "arg2", "description": "Second test argument",
                     "required": True}),
                description="A prompt with arguments",
                complete=lambda name, value: [
                    each for each in COMPLETIONS if each.startswith(value)]),
            Prompt("test_prompt_with_embedded_resource", lambda arguments: [
                {"role": "user", "content": {"type": "resource", "resource": {
                    "uri": arguments["resourceUri"], "mimeType": "text/plain",
                    "text": "Embedded resource content for testing."}}},
                {"role": "user", "content": text(
                    "Please process the embedded resource above.")}],
                arguments=({"name": "resourceUri",
                            "description": "URI of the resource to embed",
                            "required": True},),
                description="A prompt with an embedded resource"),
            Prompt("test_input_required_result_prompt",
                   fixtures2026.contextPrompt, asks=True,
                   description="A prompt that asks for context first"),
            Prompt("test_prompt_with_image", lambda arguments: [
                {"role": "user", "content": image()},
                {"role": "user", "content": text(
                    "Please analyze the image above.")}],
                description="A prompt with an image"),
        ]

