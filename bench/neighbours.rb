# frozen_string_literal: true

# Busy loops in process groups of their own: both (one schedule, on every
# core at once) or each (a schedule per core). A burst of 0.2-2 s, then an
# idle 7/3 as long: about 30% busy.
class Neighbours
  SPIN = <<~RUBY
    srand(Integer(ARGV[0]))
    now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
    loop do
      burst = rand(0.2..2.0)
      sleep(rand * burst * 7 / 3)
      stop = now.call + burst
      nil while now.call < stop
      sleep(burst * 7 / 3 * rand)
    end
  RUBY

  def initialize(kind, cores:, seed:)
    @pids = if kind == "quiet" then []
    else
      (0...cores).map do |cpu|
        s = (kind == "both") ? seed : seed + cpu
        Process.spawn("taskset", "-c", cpu.to_s, RbConfig.ruby, "-e", SPIN, s.to_s, pgroup: true, out: File::NULL, err: File::NULL)
      end
    end
  end

  def stop
    @pids.each do |pid|
      Process.kill("TERM", -pid)
    rescue Errno::ESRCH
      nil
    end
    @pids.each do |pid|
      Process.wait(pid)
    rescue Errno::ECHILD
      nil
    end
  end
end
