// A real MCP client, the official TypeScript SDK (@modelcontextprotocol/sdk,
// pinned in package.json), driving a running gsmcpd end to end:
// initialize, tools/list, tools/call execute_code, resources/list +
// resources/read, then session termination (the TS SDK only sends DELETE
// when asked, through transport.terminateSession()).
//
// Usage: node ts_sdk_client.mjs URL
// Prints one JSON line of what it saw; exits 1 if a step went wrong (the
// line's "problems" says which), so bin/run-conformance can just check the
// exit status.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// The conformance fixtures toolset serves this one; every client reads it.
const STATIC_TEXT = "test://static-text";

const url = process.argv[2];
if (!url) {
  console.error("usage: node ts_sdk_client.mjs URL");
  process.exit(2);
}

const seen = { client: "@modelcontextprotocol/sdk", problems: [] };
const problem = (text) => seen.problems.push(text);

// First text of a resources/read answer, short: enough to show it worked.
const firstText = (read) =>
  read.contents.map((c) => c.text ?? `<${c.blob.length} base64 chars>`)[0]?.slice(0, 80);

const client = new Client({ name: "gsmcpd-ts-sdk-client", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
try {
  await client.connect(transport); // initialize + notifications/initialized
  seen.protocolVersion = transport.protocolVersion;
  seen.serverInfo = client.getServerVersion();
  seen.capabilities = Object.keys(client.getServerCapabilities() ?? {}).sort();

  const tools = await client.listTools();
  seen.tools = tools.tools.length;

  const called = await client.callTool({ name: "execute_code", arguments: { code: "3 + 4" } });
  seen.isError = called.isError ?? false;
  seen.text = called.content.filter((b) => b.type === "text").map((b) => b.text);
  if (seen.isError || seen.text[0] !== "7") problem(`execute_code 3 + 4 answered ${JSON.stringify(called.content)}`);

  // resources/list only if declared: an undeclared one is a -32601, and
  // the read below is what must work.
  seen.reads = {};
  if (client.getServerCapabilities()?.resources) {
    const listed = await client.listResources();
    seen.resources = listed.resources.map((r) => r.uri);
    // A GemStone resource too, if the server serves one (anything that is
    // not a conformance fixture).
    const gemstone = seen.resources.find((uri) => !uri.startsWith("test://"));
    if (gemstone) {
      try {
        seen.reads[gemstone] = firstText(await client.readResource({ uri: gemstone }));
      } catch (e) {
        problem(`resources/read ${gemstone}: ${e.message}`);
      }
    }
  }
  try {
    seen.reads[STATIC_TEXT] = firstText(await client.readResource({ uri: STATIC_TEXT }));
  } catch (e) {
    problem(`resources/read ${STATIC_TEXT}: ${e.message}`);
  }

  await transport.terminateSession(); // DELETE with the session id
  seen.terminated = transport.sessionId === undefined;
  if (!seen.terminated) problem("terminateSession left a session id behind");
} catch (e) {
  problem(`${e.name}: ${e.message}`);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(seen));
process.exit(seen.problems.length ? 1 : 0);
