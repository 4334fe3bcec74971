// A real MCP client, the MCP Inspector's CLI (@modelcontextprotocol/inspector
// --cli, pinned in package.json), driving a running gsmcpd: tools/list,
// tools/call execute_code, resources/list, resources/read.
//
// Every Inspector CLI run is its own session (initialize,
// notifications/initialized, GET stream, one method) and none sends DELETE:
// it has no way to terminate a session, so the server's reaping must.
// HOME is a scratch folder: the CLI writes ~/.mcp-inspector/ state.
//
// Usage: node inspector_client.mjs URL
// Prints one JSON line of what it saw; exits 1 if a step went wrong.

import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const STATIC_TEXT = "test://static-text";
const INSPECTOR = join(dirname(fileURLToPath(import.meta.url)),
  "node_modules", ".bin", "inspector");

const url = process.argv[2];
if (!url) {
  console.error("usage: node inspector_client.mjs URL");
  process.exit(2);
}

const home = mkdtempSync(join(tmpdir(), "gsmcpd-inspector-home-"));
const seen = { client: "@modelcontextprotocol/inspector --cli", problems: [] };
const problem = (text) => seen.problems.push(text);

// One CLI run: its JSON result, or a problem noted and undefined. Exit
// codes: 1 a JSON-RPC error, 4 unreachable, 5 a tool error (isError).
async function inspector(...args) {
  try {
    const { stdout } = await promisify(execFile)(
      INSPECTOR, ["--cli", url, "--format", "json", ...args],
      { env: { ...process.env, HOME: home }, timeout: 60_000 });
    return JSON.parse(stdout).result;
  } catch (e) {
    const why = (e.stdout || e.stderr || e.message).trim().split("\n").pop();
    problem(`inspector ${args.join(" ")}: exit ${e.code}: ${why}`);
    return undefined;
  }
}

const firstText = (read) =>
  read.contents.map((c) => c.text ?? `<${c.blob.length} base64 chars>`)[0]?.slice(0, 80);

try {
  const tools = await inspector("--method", "tools/list");
  seen.tools = tools?.tools.length;

  const called = await inspector("--method", "tools/call", "--tool-name", "execute_code",
    "--tool-args-json", JSON.stringify({ code: "3 + 4" }));
  if (called) {
    seen.isError = called.isError ?? false;
    seen.text = called.content.filter((b) => b.type === "text").map((b) => b.text);
    if (seen.isError || seen.text[0] !== "7") problem(`execute_code 3 + 4 answered ${JSON.stringify(called.content)}`);
  }

  // The CLI answers resources/list with [] itself when the server declares
  // no resources, so this never fails on its own.
  const listed = await inspector("--method", "resources/list");
  seen.resources = listed?.resources.map((r) => r.uri);
  seen.reads = {};
  const gemstone = seen.resources?.find((uri) => !uri.startsWith("test://"));
  for (const uri of gemstone ? [gemstone, STATIC_TEXT] : [STATIC_TEXT]) {
    const read = await inspector("--method", "resources/read", "--uri", uri);
    if (read) seen.reads[uri] = firstText(read);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(JSON.stringify(seen));
process.exit(seen.problems.length ? 1 : 0);
