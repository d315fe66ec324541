-- wrk script: posts one KServe v2 infer request, byte for byte the one
-- `inferlab load` sends, so the two clients can be compared on the same
-- endpoint. Write the body first:
--
--   inferlab load http://127.0.0.1:8000 --model add --save-body /tmp/add.bin
--   wrk -t1 -c1 -d10s --latency -s tools/wrk/infer_binary.lua \
--       http://127.0.0.1:8000/v2/models/add/infer -- /tmp/add.bin
--
-- The body's path comes from the script argument, else from the
-- INFERLAB_BODY environment variable. Its headers (Content-Type and, for a
-- binary body, Inference-Header-Content-Length) come from PATH.headers,
-- which --save-body writes beside it. wrk adds Host and Content-Length.

local function read_all(path)
  local file = assert(io.open(path, "rb"))
  local bytes = file:read("*a")
  file:close()
  return bytes
end

-- No request() function: wrk then formats wrk.method, wrk.headers and
-- wrk.body once and sends those bytes each time, as `inferlab load` does.
-- A request() function would run Lua on every request, which at
-- concurrency 1 costs wrk more time than the server spends.
function init(args)
  local path = args[1] or os.getenv("INFERLAB_BODY")
  assert(path, "infer_binary.lua: give the body file after --, or set INFERLAB_BODY")
  for line in io.lines(path .. ".headers") do
    local name, value = line:match("^([^:]+):%s*(.-)%s*$")
    if name then wrk.headers[name] = value end
  end
  wrk.method = "POST"
  wrk.body = read_all(path)
end
