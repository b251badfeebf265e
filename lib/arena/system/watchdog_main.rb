# frozen_string_literal: true

# The watchdog process (see lib/arena/system/watchdog.rb). Plain Ruby, no gems:
# it reads "+PGID" / "-PGID" lines until EOF, then stops what is left.
%w[INT HUP TERM QUIT].each { |sig| trap(sig, "IGNORE") }

groups = {}
while (line = $stdin.gets)
  pgid = line[1..].to_i
  next unless pgid > 1
  line.start_with?("+") ? groups[pgid] = true : groups.delete(pgid)
end

alive = ->(pgid) do
  Process.kill(0, -pgid)
  true
rescue Errno::ESRCH
  false
rescue Errno::EPERM
  true
end
signal = ->(sig, pgid) do
  Process.kill(sig, -pgid)
rescue Errno::ESRCH, Errno::EPERM
  nil
end

left = groups.keys.select(&alive)
left.each { |pgid| signal.call("TERM", pgid) }
deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 3
sleep 0.05 while left.any?(&alive) && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
left.each { |pgid| signal.call("KILL", pgid) }
