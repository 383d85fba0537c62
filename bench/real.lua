-- SPDX-License-Identifier: MIT
-- A Lua workload for decode benchmarks: C calls nested through metamethods and callbacks
-- (deep C stacks), tables, strings, sorting, closures, the collector. No error() and no
-- coroutines: both longjmp, which uftrace does not follow, and the two traces must agree.
local N = tonumber(arg and arg[1]) or 1
local proxy = {}
local function rec(n) if n == 0 then return 0 end return proxy[n - 1] + 1 end
setmetatable(proxy, {__index = function(_, k) return rec(k) end})
local acc = 0
for round = 1, N do
  for d = 10, 150, 20 do acc = acc + rec(d) end
  local t = {}
  for i = 1, 2000 do t[i] = string.format("%05d:%s", (i * 7919) % 2000, tostring(i)) end
  table.sort(t, function(a, b) return a > b end)
  local s = table.concat(t, ",")
  for w in s:gmatch("(%d+):") do acc = acc + #w end
  acc = acc + #s:gsub("%d%d", function(x) return x:reverse() end)
  local m = setmetatable({}, {__index = function(_, k) return k * 2 end})
  for i = 1, 1000 do acc = acc + m[i] end
  collectgarbage("step")
end
print(acc)
