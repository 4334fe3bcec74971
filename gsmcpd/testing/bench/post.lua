-- wrk script: POST one JSON-RPC body over and over.
--
-- BENCH_BODY is the body; BENCH_SESSIONS, when set, is a comma-separated
-- list of MCP session ids, one per wrk thread.  The bench runs wrk with as
-- many threads as connections, so each connection has its own session: a
-- gsmcpd session runs its calls one at a time, as a GemStone session must.
-- done() prints one JSON line the bench parses.

local sessions = {}
for id in string.gmatch(os.getenv("BENCH_SESSIONS") or "", "[^,]+") do
  sessions[#sessions + 1] = id
end
local started = 0

function setup(thread)
  started = started + 1
  if #sessions > 0 then
    thread:set("session", sessions[(started - 1) % #sessions + 1])
  end
end

function init(args)
  wrk.method = "POST"
  wrk.body = os.getenv("BENCH_BODY")
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  if session then
    wrk.headers["Mcp-Session-Id"] = session
  end
end

function done(summary, latency, requests)
  local percentiles = {}
  for _, p in ipairs({50, 75, 90, 99, 99.9}) do
    percentiles[#percentiles + 1] = string.format('"%s": %d', p, latency:percentile(p))
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "errors": %d, "non2xx": %d, ' ..
    '"latency_us": {"mean": %.1f, "max": %d, %s}}\n',
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.timeout, e.status,
    latency.mean, latency.max, table.concat(percentiles, ", ")))
end
