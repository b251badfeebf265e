# frozen_string_literal: true

# Runs several server processes as one: `ruby spawn_all.rb JSON` where JSON is
# an array of argument arrays. Each child stays in this process group, TERM or
# INT is passed on to all of them, and this process ends when the last one
# does. Used for a Thin cluster (N independent ports behind nginx); it does
# not respawn a child that dies, because Thin itself would not.
require "json"

commands = JSON.parse(ARGV.fetch(0))
pids = commands.map { |argv| Process.spawn(*argv) }
%w[TERM INT].each do |sig|
  trap(sig) do
    pids.each do |pid|
      Process.kill("TERM", pid)
    rescue Errno::ESRCH
      nil
    end
  end
end
statuses = pids.map { |pid| Process.wait2(pid).last }
exit(statuses.all?(&:success?) ? 0 : 1)
