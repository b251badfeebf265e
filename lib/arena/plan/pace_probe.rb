# frozen_string_literal: true

require "json"
require_relative "discovery_probe"

module Arena
  class Plan
    # How slow the app is, asked before a tune plans its time: run as a
    # script inside the app's bundle (`bundle exec ruby pace_probe.rb
    # config.ru HEADERS PATHS`), in a process of its own. It boots the app
    # once, as a server would, timing the boot, then asks each GET path in
    # process: once to warm it, then again for at least REPEAT_S or
    # REPEATS times, and keeps the medians of its wall time (ms: the least a
    # request holds a slot) and of the process's CPU time (cpu_ms: the least
    # a core spends on it). No server, no port, one thread.
    #
    # Prints one JSON document on stdout: {"boot_s":, "paths": [{"path",
    # "status", "ms", "cpu_ms"}...]}; the app's logging goes to stderr.
    module PaceProbe
      REPEATS = 5
      REPEAT_S = 1.0

      module_function

      # argv: [rackup, headers as JSON, paths as JSON]
      def main(argv, out: $stdout)
        rackup, headers, paths = argv
        real = out.dup
        out.reopen($stderr)
        $stdout = $stderr
        started = now
        app = DiscoveryProbe.boot(rackup)
        boot_s = now - started
        headers = JSON.parse(headers || "{}")
        timed = JSON.parse(paths || "[]").map { |path| time(app, path, headers) }
        real.write(JSON.generate("boot_s" => boot_s.round(3), "paths" => timed))
        real.flush
      end

      def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

      def cpu = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)

      # {"path", "status", "ms", "cpu_ms"}: the medians of the repeats after a first ask.
      def time(app, path, headers)
        first = DiscoveryProbe.ask(app, path, headers)
        return first.slice("path", "status", "why") if first["status"].to_i.zero?
        walls = []
        cpus = []
        started = now
        while walls.size < REPEATS || (now - started < REPEAT_S && walls.size < 100)
          t = now
          c = cpu
          call(app, path, headers)
          cpus << (cpu - c) * 1000.0
          walls << (now - t) * 1000.0
        end
        {"path" => path, "status" => first["status"], "ms" => median(walls), "cpu_ms" => median(cpus)}
      end

      # The app's own work for one request, as a server does it: the call
      # and its body read and closed, nothing of the probe's (no parsing).
      def call(app, path, headers)
        _, _, body = app.call(DiscoveryProbe.environment(path, headers))
        body.each { |_| nil }
      ensure
        body.close if body.respond_to?(:close)
      end

      def median(values) = values.sort[values.size / 2].round(3)
    end
  end
end

Arena::Plan::PaceProbe.main(ARGV) if $PROGRAM_NAME == __FILE__
