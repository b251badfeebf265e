# frozen_string_literal: true

require_relative "../test_helper"
require "arena"
require "prime"
require "rack"
require "rack/mock"

# The built-in app in-process, no server: /primes must do the 2016
# comparison's own work, Prime.first(n).sum, and cost what that costs.
class BuiltinAppTest < Minitest::Test
  APP = Rack::Builder.parse_file(File.join(Arena::ROOT, "lib/arena/app/arena.ru")).then { |a| a.is_a?(Array) ? a.first : a }

  def get(path) = Rack::MockRequest.new(APP).get(path)

  def test_primes_is_the_sum_of_prime_first_n
    [1, 10, 1000, 5000].each do |n|
      response = get("/primes?count=#{n}")
      assert_equal 200, response.status
      assert_equal Prime.first(n).sum.to_s, response.body, "count=#{n}"
    end
    assert_equal Arena::Plan::Workloads::PRIMES_1000.to_s, get("/primes?count=1000").body
  end

  def test_trial_gives_the_same_sum_by_its_own_arithmetic
    assert_equal Prime.first(1000).sum.to_s, get("/trial?count=1000").body
  end

  # A ratio of CPU times in this one process, so the machine's speed and
  # load cancel out: each side is the best of several interleaved rounds.
  def test_primes_costs_at_most_twice_prime_first_n_sum
    n = 1000
    app = -> { get("/primes?count=#{n}").body }
    lib = -> { Prime.first(n).sum.to_s }
    assert_equal lib.call, app.call # both warm: the sieve is cached from here on
    ratio = best_cpu_ratio(app, lib)
    assert_operator ratio, :<=, 2.0, "/primes?count=#{n} costs #{ratio.round(2)}x Prime.first(#{n}).sum"
  end

  # The trial-division workload is the CPU-heavy one: it must cost far more.
  def test_trial_costs_many_times_primes
    get("/primes?count=1000")
    ratio = best_cpu_ratio(-> { get("/trial?count=1000") }, -> { get("/primes?count=1000") }, calls: 5)
    assert_operator ratio, :>=, 10.0, "/trial is only #{ratio.round(1)}x /primes"
  end

  # a's best CPU time over b's, their rounds interleaved (a, b, a, b ...) so
  # that both meet the same machine: run one after the other, 7 rounds of
  # each read 1.0-1.3 alone and 2.03 once beside two mutant runs.
  def best_cpu_ratio(a, b, calls: 50, rounds: 7)
    times = Array.new(rounds) { [a, b].map { |work| cpu(work, calls) } }.transpose
    times[0].min / times[1].min
  end

  def cpu(work, calls)
    started = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
    calls.times { work.call }
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - started
  end
end
