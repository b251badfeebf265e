# frozen_string_literal: true

# Arena's timing wrapper, loaded into a server's Ruby processes with
# RUBYOPT=-r (never into the app's files): when Rack::Builder builds the app
# (config.ru, whatever the server), the outermost app is wrapped in a
# middleware that measures, per request, the time between the request's
# X-Request-Start (the engine's send time, t=<microseconds>) and the app's
# start (waiting: the socket, the server's queue, a worker's turn) and the
# time inside the app (working). Each process keeps two log-bucket
# histograms and writes them, every 0.05 s while it serves (a few hundred
# bytes; when idle it only touches the file), to ARENA_TIMING_DIR/<pid>.json;
# Arena reads their growth over a measurement as soon as every live file was
# written or touched after the load ended.
# The app and its responses are untouched.
#
# The observer must stay out of the figures: timing every request cost the
# fastest servers up to a quarter of their throughput here. So Arena says,
# in ARENA_TIMING_DIR/mode, how many requests to time: "0" none (a
# throughput round: the middleware only counts), "1" every one, "N" one in
# N, "h" each request that carries X-Request-Start (the default: the engine
# sends the header on one request in 16, since the header alone cost Falcon
# and Iodine 12-13%). Each process's writer thread reads it every period, so Arena can switch
# a running server between rounds (bench/probe_cost measures each mode's
# cost on the same running server). No mode file: every request.
module ArenaTiming
  DIR = ENV["ARENA_TIMING_DIR"]
  PER_OCTAVE = 16 # about 4% wide buckets
  PERIOD_S = 0.05 # Arena waits at most a few of these after a measurement (Probes::QueueTime::Files#since)
  HEADER_ONLY = -1 # mode "h": time the requests that carry X-Request-Start

  @queue = Hash.new(0)
  @work = Hash.new(0)
  @lock = Mutex.new
  @writer = nil
  @writer_pid = nil
  @dirty = false
  @every = 1
  @seen = 0

  class << self
    attr_reader :every

    def bucket(us) = (us <= 1) ? 0 : (Math.log2(us) * PER_OCTAVE).floor

    # Whether to time this request: one in `every` (none at 0), or with
    # HEADER_ONLY each request that carries X-Request-Start (the engine sends
    # it on one in 16: the header itself cost Falcon and Iodine 12-13%). The
    # count is per process and unlocked: a lost increment under threads only
    # shifts which request is timed. Starts this process's writer (it reads the mode).
    def time?(env)
      start_writer unless @writer&.alive?
      return env.key?("HTTP_X_REQUEST_START") if @every == HEADER_ONLY
      return false if @every.zero?
      (@seen += 1) % @every == 0
    end

    # "0", "1", "N" or "h" (HEADER_ONLY) in DIR/mode; anything else (or no file) leaves it.
    def read_mode
      text = File.read(File.join(DIR, "mode")).strip
      @every = HEADER_ONLY if text == "h"
      @every = Integer(text, 10) if text.match?(/\A\d{1,6}\z/)
    rescue SystemCallError
      nil
    end

    def record(queue_us, work_us)
      @lock.synchronize do
        @queue[bucket(queue_us)] += 1 if queue_us
        @work[bucket(work_us)] += 1
        @dirty = true
      end
    end

    # After a fork the child starts with its parent's counts and no thread
    # (so `alive?` is false): it keeps its own from zero, in its own file.
    def start_writer
      @lock.synchronize do
        return if @writer&.alive?
        if @writer_pid && @writer_pid != Process.pid
          @queue = Hash.new(0)
          @work = Hash.new(0)
        end
        @writer_pid = Process.pid
        read_mode if DIR
        @writer = Thread.new do
          loop do
            sleep PERIOD_S
            read_mode if DIR
            write
          end
        end
      end
    end

    def write
      data = @lock.synchronize do
        next nil unless @dirty
        @dirty = false
        %({"queue":#{@queue.to_a},"work":#{@work.to_a}})
      end
      return unless DIR
      path = File.join(DIR, "#{Process.pid}.json")
      # Nothing new: the file's time says "alive, all written", so Arena
      # need not wait for this process after a measurement.
      return File.utime(nil, nil, path) unless data
      File.write("#{path}.tmp", data)
      File.rename("#{path}.tmp", path)
    rescue SystemCallError
      nil
    end

    def wrap(app) = Middleware.new(app)
  end

  class Middleware
    def initialize(app)
      @app = app
    end

    def call(env)
      return @app.call(env) unless ArenaTiming.time?(env)
      timed(env)
    end

    def timed(env)
      started = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)
      @app.call(env)
    ensure
      # t=0000000000000000 is the engine's placeholder where it cannot write
      # the send time (its HTTP/2 frames): no time, so no waiting figure.
      sent = env["HTTP_X_REQUEST_START"].to_s[/\At=(\d+)/, 1]&.to_i
      sent = nil unless sent&.positive?
      now = Process.clock_gettime(Process::CLOCK_REALTIME, :microsecond)
      ArenaTiming.record(sent && [started - sent, 0].max, now - started)
    end
  end

  # Wraps only the outermost app a Builder makes (a `map` builds inner ones first).
  module BuilderHook
    def to_app
      depth = (Thread.current[:arena_timing_depth] ||= 0)
      Thread.current[:arena_timing_depth] = depth + 1
      app = super
      depth.zero? ? ArenaTiming.wrap(app) : app
    ensure
      Thread.current[:arena_timing_depth] = depth
    end
  end
end

# Rack is not loaded yet: hook Rack::Builder as soon as its class body ends.
ArenaTiming::HOOK = TracePoint.new(:end) do |tp|
  if tp.self.is_a?(Module) && tp.self.name == "Rack::Builder"
    tp.self.prepend(ArenaTiming::BuilderHook)
    ArenaTiming::HOOK.disable
  end
end
ArenaTiming::HOOK.enable if ArenaTiming::DIR
