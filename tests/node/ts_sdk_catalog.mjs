// The official TypeScript SDK's v2 line (@modelcontextprotocol/client,
// pinned in package.json) reaching tools a surface does not list, as an
// agent would: the twin of tests/clients/python_sdk_catalog.py.
//
// Usage: node ts_sdk_catalog.mjs URL full|catalog legacy|auto
//   legacy is the SDK's default (the 2025 initialize handshake); auto is
//   versionNegotiation: { mode: "auto" } (it negotiates 2026-07-28).
//   list the tools -> (2026: open_session) -> define class Gadget
//   (catalog: through tool_call, the handle as tool_call's own argument;
//   full: directly) -> (catalog: tool_get of compile_class_definition and
//   of get_class_definition) -> read its definition and delete it by direct
//   calls (unlisted on the catalog surface, with the handle among their
//   arguments; catalog: the read given tool_get's definition, so that the
//   SDK mirrors the handle in Mcp-Param-Session) -> (2026: close_session;
//   2025: DELETE)
// Prints one JSON line of what it saw; exits 1 if a step went wrong (the
// line's "problems" says which).

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const GADGET = { className: "Gadget", instVarNames: ["size"] };

const [url, surface, mode] = process.argv.slice(2);
if (!url || !["full", "catalog"].includes(surface) || !["legacy", "auto"].includes(mode)) {
  console.error("usage: node ts_sdk_catalog.mjs URL full|catalog legacy|auto");
  process.exit(2);
}

const seen = { client: "@modelcontextprotocol/client", steps: {}, problems: [] };

const text = (result) =>
  (result.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join(" ");

// Records a step's text; a tool error, or text without `says`, is a problem.
const expect = (step, result, says) => {
  const said = text(result);
  seen.steps[step] = said.slice(0, 160);
  if (result.isError || (says && !said.includes(says))) {
    seen.problems.push(`${step}: ${said.slice(0, 300)}`);
  }
  return result.structuredContent ?? {};
};

const options = mode === "auto" ? { versionNegotiation: { mode: "auto" } } : {};
const client = new Client({ name: "gsmcpd-ts-sdk-catalog", version: "1.0.0" }, options);
const transport = new StreamableHTTPClientTransport(new URL(url));
const call = (name, args) => client.callTool({ name, arguments: args });
try {
  await client.connect(transport);
  seen.protocolVersion = client.getNegotiatedProtocolVersion();
  seen.listed = (await client.listTools()).tools.map((t) => t.name).sort();
  let handle = {};
  if (mode === "auto") {
    handle = { session: expect("open", await call("open_session", {})).session };
  }
  const defined = surface === "catalog"
    ? await call("tool_call", { name: "compile_class_definition", arguments: GADGET, ...handle })
    : await call("compile_class_definition", { ...GADGET, ...handle });
  expect("define", defined, "Gadget");
  // Catalog: tool_get's definition given to callTool as toolDefinition, so
  // the SDK mirrors the handle in Mcp-Param-Session as for a listed tool.
  let reading;
  if (surface === "catalog") {
    const described = expect("describe", await call("tool_get", { name: "compile_class_definition" }));
    seen.describedArguments = Object.keys(described.tool?.inputSchema?.properties ?? {}).sort();
    reading = { toolDefinition: expect("describe reader",
      await call("tool_get", { name: "get_class_definition" })).tool };
  }
  expect("read", await client.callTool(
    { name: "get_class_definition", arguments: { className: "Gadget", ...handle } },
    reading), "Gadget");
  expect("delete", await call("delete_class", { className: "Gadget", ...handle }));
  if (handle.session) {
    expect("close", await call("close_session", handle));
  } else {
    await transport.terminateSession();
  }
} catch (e) {
  seen.problems.push(`${e.name}: ${e.message}`);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(seen));
process.exit(seen.problems.length ? 1 : 0);
