# frozen_string_literal: true

# The built-in arena app. Plain Rack, no framework, so that what is measured is
# the server. Written in Ruby 2.6 syntax so that JRuby 9.3 runs it too. Each path is one workload; lib/arena/workloads.rb holds the rule
# that verifies it before any load.

require "json"
# A declared dependency (rack-arena.gemspec); under JRuby 9.3 it is in the
# standard library.
require "prime"

module ArenaApp
  TEXT = {"content-type" => "text/plain"}.freeze
  # Whether this process runs with YJIT (--runtime yjit); fixed at boot.
  YJIT = (defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled?) ? "on" : "off"
  # What /leak keeps for good: a known leak, so growth detection has a truth.
  LEAKED = []

  module_function

  def call(env)
    params = query(env["QUERY_STRING"])
    case env["PATH_INFO"]
    when "/", "/server" then server(env)
    when "/pi" then text(pi(int(params, "digits", 5000, 20_000)))
    when "/sleep" then nap(int(params, "ms", 1000, 60_000))
    when "/random" then random(env)
    when "/primes" then text(Prime.first(int(params, "count", 1000, 100_000)).sum.to_s)
    when "/trial" then text(trial_division_sum(int(params, "count", 1000, 100_000)).to_s)
    when "/ip" then text(env["REMOTE_ADDR"].to_s)
    when "/json" then respond("application/json", JSON.generate(message: "Hello, World!"))
    when "/body" then text("x" * body_bytes(params))
    when "/upload" then upload(env)
    when "/stream" then stream(int(params, "chunks", 5, 1000), int(params, "ms", 20, 10_000))
    when "/leak" then leak(int(params, "kb", 64, 10_240))
    else respond("text/plain", "not found\n", status: 404)
    end
  end

  # The app states its own length, as Rack 3 expects of an app: a server
  # should not need middleware to frame a plain response.
  def text(body)
    respond("text/plain", body)
  end

  def respond(type, body, status: 200)
    [status, {"content-type" => type, "content-length" => body.bytesize.to_s}, [body]]
  end

  # ?bytes=N (a page of an exact size) or ?kb=N (64 by default).
  def body_bytes(params)
    return int(params, "bytes", 0, 100 * 1024 * 1024) if params.key?("bytes")
    1024 * int(params, "kb", 64, 100_000)
  end

  def query(string)
    string.to_s.split("&").to_h { |pair| pair.split("=", 2) }
  end

  def int(params, name, default, max)
    value = Integer(params.fetch(name, default), exception: false) || default
    value.clamp(0, max)
  end

  def server(env)
    lines = {
      "pid" => Process.pid,
      "server" => ENV.fetch("ARENA_SERVER", env["SERVER_SOFTWARE"].to_s),
      "ruby" => RUBY_DESCRIPTION,
      "rack_env" => ENV["RACK_ENV"].to_s,
      "yjit" => YJIT
    }
    text(lines.map { |k, v| "#{k}: #{v}\n" }.join)
  end

  # Retains kb KB per request in this process, never freed: memory grows by
  # kb x requests served (the soak scenario's known truth).
  def leak(kb)
    LEAKED << ("x" * (1024 * kb))
    text("leaked #{kb} KB (#{LEAKED.size} requests in pid #{Process.pid})\n")
  end

  def nap(ms)
    sleep(ms / 1000.0)
    text("slept #{ms} ms\n")
  end

  # The 2013 mix: half /server, a quarter /pi, a quarter /sleep.
  def random(env)
    roll = rand(4)
    return server(env) if roll < 2
    (roll == 2) ? text(pi(5000)) : nap(1000)
  end

  # Digits of pi by Machin's formula in integer arithmetic: CPU-bound, no I/O.
  def pi(digits)
    unity = 10**(digits + 10)
    value = 4 * (4 * arccot(5, unity) - arccot(239, unity))
    s = (value / 10**10).to_s
    "#{s[0]}.#{s[1..]}"
  end

  def arccot(x, unity)
    sum = term = unity / x
    n = 3
    sign = -1
    x2 = x * x
    until term.zero?
      term /= x2
      sum += sign * (term / n)
      sign = -sign
      n += 2
    end
    sum
  end

  # /primes is the 2016 comparison's own work, Prime.first(n).sum: the
  # library keeps its sieve between calls, so after the first request it costs
  # about 0.15 ms for n = 1000. /trial gives the same sum by trial division
  # over the primes found so far, from scratch on every call: about 50 times
  # the CPU and far more allocation, a CPU-heavy request (ab-2015 uses it for
  # the rendering half of a Rails page).
  def trial_division_sum(count)
    primes = []
    candidate = 2
    while primes.size < count
      primes << candidate if primes.take_while { |p| p * p <= candidate }.none? { |p| (candidate % p).zero? }
      candidate += 1
    end
    primes.sum
  end

  def upload(env)
    input = env["rack.input"]
    size = 0
    while (chunk = input&.read(16_384))
      size += chunk.bytesize
    end
    text(size.to_s)
  end

  # A chunked response produced slowly: the body is an enumerable without a
  # length, so HTTP/1.1 servers send it chunked.
  def stream(chunks, ms)
    body = Enumerator.new do |y|
      chunks.times do |i|
        sleep(ms / 1000.0) if i.positive?
        y << "chunk #{i}\n"
      end
    end
    [200, TEXT.dup, body]
  end
end

run ArenaApp
